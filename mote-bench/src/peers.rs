//! The Go and Elixir peers: where they live, whether their toolchains are here, and the command
//! line that runs one scenario on each (contract, "Invocation and output").

use crate::params::Params;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where the peers are and which of them can run.
#[derive(Debug, Clone)]
pub struct Peers {
    /// The `peers/` directory.
    pub dir: PathBuf,
    /// The Go peer binary, when present (or just built).
    pub go_binary: Option<PathBuf>,
    /// Why the Go peer cannot run, when it cannot.
    pub go_missing: Option<String>,
    /// The `elixir` executable, when on PATH and `peers/elixir/bench.exs` exists.
    pub elixir: Option<PathBuf>,
    /// Why the Elixir peer cannot run, when it cannot.
    pub elixir_missing: Option<String>,
}

/// The Go peer's binary name inside `peers/go`.
pub const GO_BINARY: &str = "mote-peer-go";

/// Finds `peers/`: `$MOTE_PEERS_DIR`, else the first `peers/` in the current directory or an
/// ancestor (the harness runs from the repository), else the one next to this crate's source.
pub fn locate_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("MOTE_PEERS_DIR") {
        return PathBuf::from(dir);
    }
    if let Ok(cwd) = std::env::current_dir() {
        if let Some(found) = cwd
            .ancestors()
            .map(|a| a.join("peers"))
            .find(|p| p.is_dir())
        {
            return found;
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../peers")
}

/// Looks `name` up on PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

impl Peers {
    /// Probes both peers. With `build_go`, a missing Go binary is built once with
    /// `go build -o mote-peer-go .` when the toolchain and `peers/go/go.mod` are there.
    pub fn discover(dir: PathBuf, build_go: bool) -> Peers {
        let (go_binary, go_missing) = match discover_go(&dir, build_go) {
            Ok(b) => (Some(b), None),
            Err(why) => (None, Some(why)),
        };
        let script = dir.join("elixir/bench.exs");
        let (elixir, elixir_missing) = match which("elixir") {
            None => (None, Some("`elixir` is not on PATH".to_string())),
            Some(_) if !script.is_file() => {
                (None, Some(format!("{} does not exist", script.display())))
            }
            Some(e) => (Some(e), None),
        };
        Peers {
            dir,
            go_binary,
            go_missing,
            elixir,
            elixir_missing,
        }
    }

    /// The command that runs one scenario on the Go peer (`W V k=v ...`; V is `-` for a
    /// workload without variants, as everywhere in the harness).
    pub fn go_command(&self, workload: &str, variant: &str, p: &Params) -> Option<Command> {
        let mut cmd = Command::new(self.go_binary.as_ref()?);
        cmd.arg(workload).arg(variant).args(p.to_kv_args());
        Some(cmd)
    }

    /// The command that runs one scenario on the Elixir peer. `+P 5000000` raises the BEAM's
    /// process limit above the million-process workloads.
    pub fn elixir_command(&self, workload: &str, variant: &str, p: &Params) -> Option<Command> {
        let mut cmd = Command::new(self.elixir.as_ref()?);
        cmd.args(["--erl", "+P 5000000"])
            .arg(self.dir.join("elixir/bench.exs"))
            .arg(workload)
            .arg(variant)
            .args(p.to_kv_args());
        Some(cmd)
    }
}

fn discover_go(dir: &Path, build: bool) -> Result<PathBuf, String> {
    let go_dir = dir.join("go");
    let binary = go_dir.join(GO_BINARY);
    if is_executable(&binary) {
        return Ok(binary);
    }
    let Some(go) = which("go") else {
        return Err(format!(
            "{} is missing and `go` is not on PATH",
            binary.display()
        ));
    };
    if !go_dir.join("go.mod").is_file() {
        return Err(format!("{} has no go.mod", go_dir.display()));
    }
    if !build {
        return Err(format!("{} is not built", binary.display()));
    }
    eprintln!(
        "building the Go peer: go build -o {GO_BINARY} . (in {})",
        go_dir.display()
    );
    let out = Command::new(go)
        .args(["build", "-o", GO_BINARY, "."])
        .current_dir(&go_dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("go build could not start: {e}"))?;
    if out.status.success() && is_executable(&binary) {
        Ok(binary)
    } else {
        let stderr = String::from_utf8_lossy(&out.stderr);
        Err(format!(
            "go build failed: {}",
            crate::child::tail(&stderr, 5).replace('\n', " | ")
        ))
    }
}

/// The first line of `program args` on stdout, or `None` when it cannot run.
pub fn version_of(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(which(program)?)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    (!lines.is_empty()).then(|| lines.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peer_commands_follow_the_contract() {
        let peers = Peers {
            dir: PathBuf::from("/repo/peers"),
            go_binary: Some(PathBuf::from("/repo/peers/go/mote-peer-go")),
            go_missing: None,
            elixir: Some(PathBuf::from("/usr/bin/elixir")),
            elixir_missing: None,
        };
        let p = Params::from_pairs([("k", 20_000)]);
        let go = peers.go_command("million", "-", &p).unwrap();
        let args: Vec<_> = go
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(args, ["million", "-", "k=20000"]);
        let ex = peers.elixir_command("chain", "int", &p).unwrap();
        let args: Vec<_> = ex
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            args,
            [
                "--erl",
                "+P 5000000",
                "/repo/peers/elixir/bench.exs",
                "chain",
                "int",
                "k=20000"
            ]
        );
    }

    #[test]
    fn which_finds_sh() {
        assert!(which("sh").is_some());
        assert!(which("surely-not-a-program-xyz").is_none());
    }
}
