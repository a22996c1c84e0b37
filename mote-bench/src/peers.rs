//! The peers table: the benchmark programs written for other runtimes (`peers/<runtime>/`),
//! how to find and run each, and the version string the reports' machine section shows.
//!
//! Adding a peer runtime is one entry in [`PEERS`] and its programs, which follow the
//! contract in `docs/workloads.md`: `PROGRAM W V k=v ...` prints one RESULT line; a wrong
//! answer exits 1, a usage error 2, a workload the peer does not have exits 3 after printing
//! `SKIP <reason>`.

use crate::harness::params::Params;
use crate::workloads::spec::THREADS;
use crate::workloads::Spec;
use crate::workloads::{call, pingpong};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One peer runtime.
#[derive(Debug)]
pub struct Peer {
    /// The runtime's name (`go`), also the key of its version in the reports.
    pub runtime: &'static str,
    /// How its programs are started.
    pub launcher: Launcher,
    /// The command whose output is the toolchain's version (`go version`).
    pub version: &'static [&'static str],
    /// Typical start-up and tear-down cost of one run, ms (for the duration estimate).
    pub startup_ms: f64,
    /// Whether the default (standard-size) and `--quick` runs include it; `--full` and an
    /// explicit `--impls` always do. The JVM peers' start-up and warm-up (seconds per run)
    /// would double the default run's ten minutes, so they are in the full run only.
    pub in_default_run: bool,
    /// The implementations it provides, in interleaving order.
    pub impls: &'static [PeerImpl],
}

/// How a peer's programs are started.
#[derive(Debug)]
pub enum Launcher {
    /// A program built inside `peers/`: `dir/file`, built by running `build` in `dir` when
    /// it is missing and the build's first word is on PATH.
    Built {
        /// Directory under `peers/`.
        dir: &'static str,
        /// The built program, in `dir`.
        file: &'static str,
        /// The build command, run in `dir`.
        build: &'static [&'static str],
    },
    /// A launcher script under `peers/` that runs a prepared artifact (compiled classes, a
    /// jar): `dir/program`, ready when `dir/artifact` exists, which `build` (run in `dir`)
    /// makes when it is missing and the build's first word is on PATH.
    Prepared {
        /// Directory under `peers/`.
        dir: &'static str,
        /// The launcher script, in `dir`.
        program: &'static str,
        /// What the build makes, relative to `dir`.
        artifact: &'static str,
        /// The build command, run in `dir`.
        build: &'static [&'static str],
    },
    /// A script under `peers/`, run by an interpreter on PATH: `interpreter args... script`.
    Script {
        /// The interpreter (`elixir`).
        interpreter: &'static str,
        /// Its arguments before the script.
        args: &'static [&'static str],
        /// The script, relative to `peers/`.
        script: &'static str,
    },
}

/// One implementation a peer runtime provides.
#[derive(Debug)]
pub struct PeerImpl {
    /// Its name in `--impls` and reports (`elixir_tuned`).
    pub name: &'static str,
    /// What it is.
    pub summary: &'static str,
    /// Arguments before the workload, for a program that serves several implementations
    /// (`PROGRAM clojure_agents W V k=v ...`).
    pub leading: &'static [&'static str],
    /// Parameters of its own, appended after the contract's (`tuned=1`).
    pub params: &'static [(&'static str, u64)],
    /// The workloads it runs; empty for all.
    pub only: &'static [&'static str],
    /// The options it takes ([`crate::workloads::spec::THREADS`] and workloads'
    /// [`crate::workloads::Spec::options`]); a scenario that sets any other is not run on it.
    pub options: &'static [&'static str],
}

/// Every peer runtime, in interleaving order (after mote and tokio).
pub static PEERS: &[Peer] = &[
    Peer {
        runtime: "go",
        launcher: Launcher::Built {
            dir: "go",
            file: "mote-peer-go",
            build: &["go", "build", "-o", "mote-peer-go", "."],
        },
        version: &["go", "version"],
        startup_ms: 10.0,
        in_default_run: true,
        impls: &[PeerImpl {
            name: "go",
            summary: "goroutines and channels, standard library only",
            leading: &[],
            params: &[],
            only: &[],
            options: &[THREADS, pingpong::PAIRS, call::CALLERS],
        }],
    },
    Peer {
        runtime: "elixir",
        // `+P 2000000` raises the BEAM's process limit (262,144 by default) above the million-process
        // workloads (skynet has 1.1 million processes); the BEAM rounds it up to 2^21. A larger
        // limit costs memory: `+P 5000000` (2^23 slots) added 73 MB to every run's RSS.
        launcher: Launcher::Script {
            interpreter: "elixir",
            args: &["--erl", "+P 2000000"],
            script: "elixir/bench.exs",
        },
        version: &["elixir", "--version"],
        startup_ms: 900.0,
        in_default_run: true,
        impls: &[
            PeerImpl {
                name: "elixir",
                summary: "plain processes, GenServer for call, Task for copy",
                leading: &[],
                params: &[],
                only: &[],
                // `threads`: the schedulers online, at most the BEAM's one per core.
                options: &[THREADS, pingpong::PAIRS, call::CALLERS],
            },
            PeerImpl {
                name: "elixir_tuned",
                summary: "the Elixir peer with the workload's known BEAM trap avoided \
                          (the collecting process's mailbox kept off-heap)",
                leading: &[],
                params: &[("tuned", 1)],
                only: &["million", "spawn", "fanin", "workers"],
                options: &[THREADS],
            },
        ],
    },
    Peer {
        runtime: "clojure",
        // One launcher serves the four implementations; its first argument names the one.
        launcher: Launcher::Prepared {
            dir: "clojure",
            program: "mote-peer-clojure",
            artifact: "classes/mote_peer/main__init.class",
            build: &["bash", "build.sh"],
        },
        version: &["clojure/mote-peer-clojure", "--version"],
        // JVM start, loading the AOT-compiled classes, and the warm-up run (outside the
        // measured time, inside the run's).
        startup_ms: 3500.0,
        in_default_run: false,
        impls: &[
            PeerImpl {
                name: "clojure_agents",
                summary: "Clojure agents, plain `send` (the fixed pool of cores + 2 threads)",
                leading: &["clojure_agents"],
                params: &[],
                only: &["chain", "ring"],
                options: &[],
            },
            PeerImpl {
                name: "clojure_agents_tuned",
                summary: "Clojure agents, `send` on a work-stealing pool (the tuned dispatch)",
                leading: &["clojure_agents_tuned"],
                params: &[],
                only: &["chain", "ring"],
                options: &[],
            },
            PeerImpl {
                name: "clojure_async",
                summary: "core.async go blocks, unbuffered channels as mailboxes",
                leading: &["clojure_async"],
                params: &[],
                only: &[],
                options: &[],
            },
            PeerImpl {
                name: "clojure_async_buffered",
                summary: "core.async with 1024-slot mailbox channels and one go thread per core",
                leading: &["clojure_async_buffered"],
                params: &[],
                only: &["chain", "fanin", "workers"],
                options: &[],
            },
        ],
    },
    Peer {
        runtime: "pekko",
        launcher: Launcher::Prepared {
            dir: "pekko",
            program: "mote-peer-pekko",
            artifact: "target/mote-peer-pekko.jar",
            build: &["mvn", "-q", "-B", "package"],
        },
        version: &["pekko/mote-peer-pekko", "--version"],
        startup_ms: 2500.0,
        in_default_run: false,
        impls: &[PeerImpl {
            name: "pekko",
            summary: "Apache Pekko typed actors (Java), fork-join dispatcher, throughput 100",
            leading: &[],
            params: &[],
            only: &[],
            options: &[],
        }],
    },
];

/// Finds a peer implementation by name, with its runtime.
pub fn find_impl(name: &str) -> Option<(&'static Peer, &'static PeerImpl)> {
    PEERS
        .iter()
        .find_map(|p| p.impls.iter().find(|i| i.name == name).map(|i| (p, i)))
}

/// Why peer implementation `imp` cannot run workload `spec` at `params`, if it cannot: a
/// workload outside its `only` list, or an option it does not take. `None` for an
/// implementation that is not a peer's.
pub fn leaves_out(imp: &str, spec: &Spec, params: &Params) -> Option<String> {
    let (_, pi) = find_impl(imp)?;
    if !pi.only.is_empty() && !pi.only.contains(&spec.name) {
        return Some(format!("{imp} runs only {}", pi.only.join(", ")));
    }
    let option = spec.options_set(params).find(|o| !pi.options.contains(o))?;
    Some(format!("{imp} does not take the option {option}"))
}

/// The implementations that take `option`: mote and tokio take every option, a peer those
/// its [`PeerImpl::options`] lists.
pub fn takers(option: &str) -> Vec<&'static str> {
    let peers = PEERS
        .iter()
        .flat_map(|p| p.impls)
        .filter(|i| i.options.contains(&option))
        .map(|i| i.name);
    ["mote", "tokio"].into_iter().chain(peers).collect()
}

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

/// The program that runs a peer's scenarios and the arguments that come before the
/// scenario's own.
type Prefix = (PathBuf, Vec<String>);

/// Where each peer runtime's programs are and which of them can run.
#[derive(Debug, Clone)]
pub struct Peers {
    /// Per runtime: its prefix, or why it cannot run.
    found: Vec<(&'static str, Result<Prefix, String>)>,
}

impl Peers {
    /// Probes every peer runtime. With `build`, a missing built program is built once when
    /// its toolchain is on PATH.
    pub fn discover(dir: PathBuf, build: bool) -> Peers {
        let found = PEERS
            .iter()
            .map(|p| (p.runtime, launch_prefix(&dir, &p.launcher, build)))
            .collect();
        Peers { found }
    }

    /// Peers at fixed places, for tests: each runtime listed is found as `program` with
    /// `args`; the others are not there.
    #[cfg(test)]
    pub(crate) fn fixed(found: Vec<(&'static str, PathBuf, Vec<String>)>) -> Peers {
        let found = found
            .into_iter()
            .map(|(rt, prog, args)| (rt, Ok((prog, args))))
            .collect();
        Peers { found }
    }

    fn prefix(&self, runtime: &str) -> Result<&Prefix, String> {
        match self.found.iter().find(|(rt, _)| *rt == runtime) {
            Some((_, Ok(prefix))) => Ok(prefix),
            Some((_, Err(why))) => Err(why.clone()),
            None => Err(format!("{runtime} was not probed")),
        }
    }

    /// Why the runtime of peer implementation `imp` cannot run, when it cannot.
    pub fn missing(&self, imp: &str) -> Option<String> {
        let (peer, _) = find_impl(imp)?;
        self.prefix(peer.runtime).err()
    }

    /// The program (and leading arguments) of runtime `runtime`, as `list` shows it.
    pub fn program(&self, runtime: &str) -> Result<String, String> {
        self.prefix(runtime).map(|(prog, args)| {
            let mut words = vec![prog.display().to_string()];
            words.extend(args.iter().cloned());
            words.join(" ")
        })
    }

    /// The command that runs one scenario on peer implementation `imp`:
    /// `PROGRAM [leading] W V k=v ... [own params]` (V is `-` for a workload without
    /// variants).
    pub fn command(&self, imp: &str, workload: &str, variant: &str, p: &Params) -> Option<Command> {
        let (peer, pi) = find_impl(imp)?;
        let (program, args) = self.prefix(peer.runtime).ok()?;
        let mut cmd = Command::new(program);
        cmd.args(args)
            .args(pi.leading)
            .arg(workload)
            .arg(variant)
            .args(p.to_kv_args());
        cmd.args(pi.params.iter().map(|(k, v)| format!("{k}={v}")));
        Some(cmd)
    }
}

/// The program and leading arguments of `launcher`, or why it cannot run.
fn launch_prefix(dir: &Path, launcher: &Launcher, build: bool) -> Result<Prefix, String> {
    match launcher {
        Launcher::Built {
            dir: sub,
            file,
            build: build_cmd,
        } => {
            let program = dir.join(sub).join(file);
            let stale = build && is_executable(&program) && older_than_sources(&program);
            if !is_executable(&program) || stale {
                build_in(&dir.join(sub), &program, build_cmd, build, is_executable)?;
            }
            Ok((program, Vec::new()))
        }
        Launcher::Prepared {
            dir: sub,
            program,
            artifact,
            build: build_cmd,
        } => {
            let dir = dir.join(sub);
            let program = dir.join(program);
            if !is_executable(&program) {
                return Err(format!("{} does not exist", program.display()));
            }
            let artifact = dir.join(artifact);
            if !artifact.exists() {
                build_in(&dir, &artifact, build_cmd, build, Path::exists)?;
            }
            Ok((program, Vec::new()))
        }
        Launcher::Script {
            interpreter,
            args,
            script,
        } => {
            let Some(interp) = which(interpreter) else {
                return Err(format!("`{interpreter}` is not on PATH"));
            };
            let script = dir.join(script);
            if !script.is_file() {
                return Err(format!("{} does not exist", script.display()));
            }
            let mut words: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            words.push(script.display().to_string());
            Ok((interp, words))
        }
    }
}

/// Whether a file beside `program` (its sources: the peer's directory, not below) changed
/// after it was built: an edited peer is rebuilt rather than measured as it was.
fn older_than_sources(program: &Path) -> bool {
    let built = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let (Some(dir), Some(at)) = (program.parent(), built(program)) else {
        return false;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| {
        let path = e.path();
        path != program && path.is_file() && built(&path).is_some_and(|t| t > at)
    })
}

/// Makes `program` (a program or another artifact, done when `ready` says so) by running
/// `cmd` in `dir`, once, when asked and possible.
fn build_in(
    dir: &Path,
    program: &Path,
    cmd: &[&str],
    build: bool,
    ready: fn(&Path) -> bool,
) -> Result<(), String> {
    let Some((tool, args)) = cmd.split_first() else {
        return Err(format!("{} is missing", program.display()));
    };
    let Some(tool_path) = which(tool) else {
        return Err(format!(
            "{} is missing and `{tool}` is not on PATH",
            program.display()
        ));
    };
    if !build {
        return Err(format!("{} is not built", program.display()));
    }
    eprintln!(
        "building {}: {} (in {})",
        program.display(),
        cmd.join(" "),
        dir.display()
    );
    let out = Command::new(tool_path)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{tool} could not start: {e}"))?;
    if out.status.success() && ready(program) {
        Ok(())
    } else {
        let stderr = String::from_utf8_lossy(&out.stderr);
        Err(format!(
            "{} failed: {}",
            cmd.join(" "),
            crate::harness::child::tail(&stderr, 5).replace('\n', " | ")
        ))
    }
}

/// The output of `command` (first word looked up on PATH, or under `peers/` when it has a
/// slash), its non-empty lines joined by `; `, or `None` when it cannot run.
pub fn version_of(command: &[&str]) -> Option<String> {
    let (program, args) = command.split_first()?;
    // A first word with a slash is a program under `peers/` (a peer's own launcher).
    let program = if program.contains('/') {
        Some(locate_dir().join(program)).filter(|p| is_executable(p))?
    } else {
        which(program)?
    };
    let out = Command::new(program)
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

    fn args_of(cmd: &Command) -> Vec<String> {
        cmd.get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn peer_commands_follow_the_contract() {
        let peers = Peers::fixed(vec![
            ("go", PathBuf::from("/repo/peers/go/mote-peer-go"), vec![]),
            (
                "elixir",
                PathBuf::from("/usr/bin/elixir"),
                vec![
                    "--erl".into(),
                    "+P 2000000".into(),
                    "/repo/peers/elixir/bench.exs".into(),
                ],
            ),
        ]);
        let p = Params::from_pairs([("k", 20_000)]);
        let go = peers.command("go", "million", "-", &p).unwrap();
        assert_eq!(go.get_program(), "/repo/peers/go/mote-peer-go");
        assert_eq!(args_of(&go), ["million", "-", "k=20000"]);
        let ex = peers.command("elixir_tuned", "spawn", "-", &p).unwrap();
        assert_eq!(
            args_of(&ex),
            [
                "--erl",
                "+P 2000000",
                "/repo/peers/elixir/bench.exs",
                "spawn",
                "-",
                "k=20000",
                "tuned=1"
            ]
        );
        assert!(peers.command("mote", "spawn", "-", &p).is_none());
        assert_eq!(peers.missing("go"), None);
    }

    #[test]
    fn a_script_runs_under_its_interpreter_with_its_arguments() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../peers");
        let launcher = Launcher::Script {
            interpreter: "sh",
            args: &["-e"],
            script: "install.sh",
        };
        let (program, args) = launch_prefix(&dir, &launcher, false).unwrap();
        assert_eq!(program, which("sh").unwrap());
        assert_eq!(
            args,
            [
                "-e".to_string(),
                dir.join("install.sh").display().to_string()
            ]
        );
        let missing = Launcher::Script {
            interpreter: "sh",
            args: &[],
            script: "nowhere/bench.exs",
        };
        let err = launch_prefix(&dir, &missing, false).unwrap_err();
        assert!(err.ends_with("does not exist"), "{err}");
    }

    #[test]
    fn a_missing_toolchain_is_reported_not_fatal() {
        let dir = PathBuf::from("/nonexistent/peers");
        let launcher = Launcher::Script {
            interpreter: "surely-not-a-program-xyz",
            args: &[],
            script: "x/bench.exs",
        };
        let err = launch_prefix(&dir, &launcher, false).unwrap_err();
        assert!(err.contains("is not on PATH"), "{err}");
        let launcher = Launcher::Built {
            dir: "x",
            file: "prog",
            build: &["surely-not-a-program-xyz", "build"],
        };
        let err = launch_prefix(&dir, &launcher, true).unwrap_err();
        assert!(err.contains("is missing"), "{err}");
    }

    /// A built peer whose sources changed after it was built is built again; one whose
    /// sources did not is left alone.
    #[test]
    fn an_edited_built_peer_is_rebuilt() {
        use std::os::unix::fs::PermissionsExt;
        use std::time::{Duration, SystemTime};
        let dir = std::env::temp_dir().join(format!("mote-peer-stale-{}", std::process::id()));
        let sub = dir.join("x");
        std::fs::create_dir_all(&sub).unwrap();
        let program = sub.join("prog");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let source = sub.join("main.go");
        std::fs::write(&source, "package main\n").unwrap();
        let set = |path: &Path, t: SystemTime| {
            std::fs::File::options()
                .write(true)
                .open(path)
                .unwrap()
                .set_modified(t)
                .unwrap();
        };
        let now = SystemTime::now();
        set(&source, now - Duration::from_secs(60));
        set(&program, now - Duration::from_secs(30));
        let launcher = Launcher::Built {
            dir: "x",
            file: "prog",
            build: &["sh", "-c", "touch rebuilt"],
        };
        launch_prefix(&dir, &launcher, true).unwrap();
        assert!(
            !sub.join("rebuilt").exists(),
            "built after its sources: kept"
        );
        set(&source, now);
        launch_prefix(&dir, &launcher, true).unwrap();
        assert!(
            sub.join("rebuilt").exists(),
            "a source newer than the program: rebuilt"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn jvm_peer_commands_name_the_implementation_first() {
        let peers = Peers::fixed(vec![
            (
                "clojure",
                PathBuf::from("/repo/peers/clojure/mote-peer-clojure"),
                vec![],
            ),
            (
                "pekko",
                PathBuf::from("/repo/peers/pekko/mote-peer-pekko"),
                vec![],
            ),
        ]);
        let p = Params::from_pairs([("m", 100), ("n", 10)]);
        let clj = peers
            .command("clojure_async_buffered", "chain", "int", &p)
            .unwrap();
        assert_eq!(clj.get_program(), "/repo/peers/clojure/mote-peer-clojure");
        assert_eq!(
            args_of(&clj),
            ["clojure_async_buffered", "chain", "int", "m=100", "n=10"]
        );
        let pekko = peers.command("pekko", "chain", "int", &p).unwrap();
        assert_eq!(args_of(&pekko), ["chain", "int", "m=100", "n=10"]);
        // The other runtimes were not found: their rows are skipped with the reason.
        assert!(peers.command("go", "chain", "int", &p).is_none());
        assert!(peers.missing("go").is_some());
    }

    #[test]
    fn a_prepared_peer_without_its_artifact_says_why() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../peers");
        let no_tool = Launcher::Prepared {
            dir: "clojure",
            program: "mote-peer-clojure",
            artifact: "surely/not/built.jar",
            build: &["surely-not-a-program-xyz"],
        };
        let err = launch_prefix(&dir, &no_tool, true).unwrap_err();
        assert!(err.contains("is not on PATH"), "{err}");
        let not_asked = Launcher::Prepared {
            dir: "clojure",
            program: "mote-peer-clojure",
            artifact: "surely/not/built.jar",
            build: &["sh", "-c", "true"],
        };
        let err = launch_prefix(&dir, &not_asked, false).unwrap_err();
        assert!(err.ends_with("is not built"), "{err}");
        let builds_nothing = Launcher::Prepared {
            dir: "clojure",
            program: "mote-peer-clojure",
            artifact: "surely/not/built.jar",
            build: &["sh", "-c", "true"],
        };
        let err = launch_prefix(&dir, &builds_nothing, true).unwrap_err();
        assert!(err.contains("failed"), "{err}");
        let no_program = Launcher::Prepared {
            dir: "clojure",
            program: "no-such-launcher",
            artifact: "x",
            build: &[],
        };
        let err = launch_prefix(&dir, &no_program, true).unwrap_err();
        assert!(err.ends_with("does not exist"), "{err}");
    }

    #[test]
    fn every_peer_impl_has_a_unique_name() {
        let names: Vec<&str> = PEERS
            .iter()
            .flat_map(|p| p.impls.iter().map(|i| i.name))
            .collect();
        for (i, n) in names.iter().enumerate() {
            assert!(!names[i + 1..].contains(n), "{n} twice");
            assert!(!matches!(*n, "mote" | "tokio"), "{n} is an in-process name");
        }
        assert_eq!(find_impl("elixir_tuned").unwrap().0.runtime, "elixir");
    }

    #[test]
    fn which_finds_sh() {
        assert!(which("sh").is_some());
        assert!(which("surely-not-a-program-xyz").is_none());
    }
}
