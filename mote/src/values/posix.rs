//! The POSIX error atoms Erlang uses for IO errors (`enoent`, `econnrefused`, ...), from
//! Rust's error kinds, so an IO failure reads as an Erlang user expects.

use std::io::ErrorKind;

/// The POSIX atom of an IO error kind, where one names it.
pub(crate) fn error_atom(kind: ErrorKind) -> Option<&'static str> {
    use ErrorKind::*;
    Some(match kind {
        NotFound => "enoent",
        PermissionDenied => "eacces",
        ConnectionRefused => "econnrefused",
        ConnectionReset => "econnreset",
        ConnectionAborted => "econnaborted",
        NotConnected => "enotconn",
        AddrInUse => "eaddrinuse",
        AddrNotAvailable => "eaddrnotavail",
        BrokenPipe => "epipe",
        AlreadyExists => "eexist",
        WouldBlock => "eagain",
        InvalidInput => "einval",
        TimedOut => "etimedout",
        Interrupted => "eintr",
        Unsupported => "enotsup",
        OutOfMemory => "enomem",
        HostUnreachable => "ehostunreach",
        NetworkUnreachable => "enetunreach",
        NetworkDown => "enetdown",
        NotADirectory => "enotdir",
        IsADirectory => "eisdir",
        DirectoryNotEmpty => "enotempty",
        ReadOnlyFilesystem => "erofs",
        StaleNetworkFileHandle => "estale",
        StorageFull => "enospc",
        NotSeekable => "espipe",
        QuotaExceeded => "edquot",
        FileTooLarge => "efbig",
        ResourceBusy => "ebusy",
        ExecutableFileBusy => "etxtbsy",
        Deadlock => "edeadlk",
        CrossesDevices => "exdev",
        TooManyLinks => "emlink",
        InvalidFilename => "enametoolong",
        ArgumentListTooLong => "e2big",
        _ => return None,
    })
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn real_errors_name_their_posix_atom() {
        let missing = std::fs::File::open("/this/path/does/not/exist").unwrap_err();
        assert_eq!(error_atom(missing.kind()), Some("enoent"));
        // A port nothing listens on, on loopback: refused at once.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let refused = std::net::TcpStream::connect(port).unwrap_err();
        assert_eq!(error_atom(refused.kind()), Some("econnrefused"));
        assert_eq!(error_atom(ErrorKind::Other), None);
    }
}
