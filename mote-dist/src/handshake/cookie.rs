//! The shared secret, and the challenge digest made from it.

use std::fmt;
use std::path::{Path, PathBuf};

use md5::{Digest, Md5};

/// The magic cookie two nodes must share to connect.
///
/// `Debug` does not print it.
///
/// ```
/// use mote_dist::handshake::Cookie;
///
/// let c = Cookie::new("secret");
/// assert_eq!(format!("{c:?}"), "Cookie(..)");
/// // md5("secret" ++ "42")
/// assert_eq!(c.digest(42), [92, 224, 110, 70, 134, 125, 232, 37, 35, 101, 20, 123, 102, 127, 28, 32]);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Cookie(String);

/// Why the cookie file could not be used.
///
/// ```
/// use mote_dist::handshake::{Cookie, CookieError};
///
/// let err = Cookie::from_file(std::path::Path::new("/nonexistent/cookie")).unwrap_err();
/// assert!(matches!(err, CookieError::Io { .. }));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CookieError {
    /// The home directory is not known (`HOME` unset).
    #[error("no home directory (HOME is not set)")]
    NoHome,
    /// Reading or creating the file failed.
    #[error("cookie file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The file is readable by others, which `erl` refuses too.
    #[error("cookie file {0} must be accessible by its owner only (chmod 400)")]
    Permissions(PathBuf),
    /// The file is empty.
    #[error("cookie file {0} is empty")]
    Empty(PathBuf),
}

impl Cookie {
    /// A cookie with this value.
    pub fn new(value: impl Into<String>) -> Self {
        Cookie(value.into())
    }

    /// The cookie in `~/.erlang.cookie`, as `erl` reads it (trailing whitespace removed;
    /// the file must not be accessible by group or others). An absent file is an error:
    /// use [`from_home_or_create`](Self::from_home_or_create) to create one as `erl` does.
    pub fn from_home() -> Result<Self, CookieError> {
        Self::from_file(&default_path()?)
    }

    /// The cookie in `~/.erlang.cookie`, creating the file as `erl` does when it is
    /// absent: 20 random uppercase letters, mode 0400.
    pub fn from_home_or_create() -> Result<Self, CookieError> {
        let path = default_path()?;
        match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Self::create(&path),
            _ => Self::from_file(&path),
        }
    }

    /// The cookie in a file, with the same checks as [`from_home`](Self::from_home).
    ///
    /// ```
    /// # use mote_dist::handshake::Cookie;
    /// let dir = std::env::temp_dir().join(format!("mote-cookie-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let path = dir.join("cookie");
    /// let created = Cookie::create(&path).unwrap();
    /// assert_eq!(Cookie::from_file(&path).unwrap(), created);
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn from_file(path: &Path) -> Result<Self, CookieError> {
        let io = |source| CookieError::Io {
            path: path.to_owned(),
            source,
        };
        let meta = std::fs::metadata(path).map_err(io)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            if meta.permissions().mode() & 0o077 != 0 {
                return Err(CookieError::Permissions(path.to_owned()));
            }
        }
        let _ = meta;
        let text = std::fs::read_to_string(path).map_err(io)?;
        let value = text.trim_end();
        if value.is_empty() {
            return Err(CookieError::Empty(path.to_owned()));
        }
        Ok(Cookie(value.to_owned()))
    }

    /// Creates a cookie file with 20 random uppercase letters, readable by its owner only
    /// (mode 0400); fails if the file exists.
    pub fn create(path: &Path) -> Result<Self, CookieError> {
        use std::io::Write;
        let value: String = (0..20)
            .map(|_| char::from(b'A' + rand::random_range(0..26u8)))
            .collect();
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o400);
        }
        let io = |source| CookieError::Io {
            path: path.to_owned(),
            source,
        };
        let mut file = options.open(path).map_err(io)?;
        file.write_all(value.as_bytes()).map_err(io)?;
        Ok(Cookie(value))
    }

    /// The handshake digest: `md5(Cookie ++ integer_to_list(Challenge))`.
    pub fn digest(&self, challenge: u32) -> [u8; 16] {
        let mut md5 = Md5::new();
        md5.update(self.0.as_bytes());
        md5.update(challenge.to_string().as_bytes());
        md5.finalize().into()
    }
}

fn default_path() -> Result<PathBuf, CookieError> {
    std::env::var_os("HOME")
        .map(|home| PathBuf::from(home).join(".erlang.cookie"))
        .ok_or(CookieError::NoHome)
}

impl fmt::Debug for Cookie {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Cookie(..)")
    }
}
