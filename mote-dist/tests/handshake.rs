//! Handshake statuses decided by the hooks, and cookie files, over in-memory streams.

use std::sync::Arc;

use mote_dist::handshake::{
    accept, connect, Admission, Cookie, CookieError, DistFlags, HandshakeError, HandshakeHooks,
    HandshakeOptions, LocalNode, NodeName,
};

struct Answer {
    admission: Admission,
    replace: bool,
}

impl HandshakeHooks for Answer {
    fn admit(&self, _peer: &NodeName, _flags: DistFlags) -> Admission {
        self.admission
    }

    fn replace_alive(&self, _peer: &NodeName) -> bool {
        self.replace
    }
}

/// Runs both roles with hooks on both sides; returns (initiator, acceptor) results as text.
async fn handshake_with(
    admission: Admission,
    replace: bool,
) -> (Result<(), String>, Result<(), String>) {
    let a = LocalNode::new("a@h".parse().unwrap(), Cookie::new("c"), 1);
    let b = LocalNode::new("b@h".parse().unwrap(), Cookie::new("c"), 2);
    let opts = HandshakeOptions {
        hooks: Arc::new(Answer { admission, replace }),
        ..Default::default()
    };
    let (sa, sb) = tokio::io::duplex(1024);
    let (ra, rb) = tokio::join!(connect(sa, &a, &b.name, &opts), accept(sb, &b, &opts));
    (
        ra.map(|_| ()).map_err(|e| e.to_string()),
        rb.map(|_| ()).map_err(|e| e.to_string()),
    )
}

#[tokio::test]
async fn statuses_follow_the_hooks() {
    assert_eq!(handshake_with(Admission::Ok, true).await, (Ok(()), Ok(())));
    assert_eq!(
        handshake_with(Admission::OkSimultaneous, true).await,
        (Ok(()), Ok(()))
    );
    // `alive` answered `true`: the handshake goes on (the old connection is replaced).
    assert_eq!(
        handshake_with(Admission::Alive, true).await,
        (Ok(()), Ok(()))
    );
    for (admission, replace, status) in [
        (Admission::Nok, true, "\"nok\""),
        (Admission::NotAllowed, true, "\"not_allowed\""),
        (Admission::Alive, false, "\"alive\""),
    ] {
        let (initiator, acceptor) = handshake_with(admission, replace).await;
        let initiator = initiator.unwrap_err();
        assert!(initiator.contains(status), "{admission:?}: {initiator}");
        assert!(acceptor.unwrap_err().contains("refused"), "{admission:?}");
    }
}

#[tokio::test]
async fn the_initiator_checks_whom_it_reached() {
    let a = LocalNode::new("a@h".parse().unwrap(), Cookie::new("c"), 1);
    let b = LocalNode::new("b@h".parse().unwrap(), Cookie::new("c"), 2);
    let opts = HandshakeOptions::default();
    let (sa, sb) = tokio::io::duplex(1024);
    let wanted: NodeName = "other@h".parse().unwrap();
    let (ra, _) = tokio::join!(connect(sa, &a, &wanted, &opts), accept(sb, &b, &opts));
    assert!(
        matches!(ra, Err(HandshakeError::WrongNode { .. })),
        "{ra:?}"
    );
}

#[test]
fn cookie_files_are_read_and_created_as_erl_does() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("mote-cookie-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    let path = dir.join("created");
    let created = Cookie::create(&path).unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o400);
    assert_eq!(Cookie::from_file(&path).unwrap(), created);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.len() == 20 && text.bytes().all(|b| b.is_ascii_uppercase()),
        "{text}"
    );
    // Never overwritten.
    assert!(matches!(Cookie::create(&path), Err(CookieError::Io { .. })));

    let path = dir.join("with-newline");
    std::fs::write(&path, "SECRET\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(Cookie::from_file(&path).unwrap(), Cookie::new("SECRET"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert!(matches!(
        Cookie::from_file(&path),
        Err(CookieError::Permissions(_))
    ));

    let path = dir.join("empty");
    std::fs::write(&path, "\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o400)).unwrap();
    assert!(matches!(
        Cookie::from_file(&path),
        Err(CookieError::Empty(_))
    ));

    std::fs::remove_dir_all(&dir).unwrap();
}
