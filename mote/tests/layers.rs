//! Keeps the layers of `mote/src` honest.
//!
//! `mote/src` has four folders, one per layer, bottom to top:
//!
//! * `values/`: plain values every layer passes around (process ids, exit reasons, monitor
//!   references);
//! * `rt/`: the internals (process table, mailboxes, scheduler, exit signals, timeouts);
//! * `process/`: the public process core (pids, send, spawn, the `Process` handle, the
//!   registry, timers, the runtime's entry points);
//! * `otp/`: the OTP behaviours built on the core (servers, supervisors, tasks, pools...).
//!
//! The rule: a file may use its own layer and the layers below it, never one above. And
//! between *modules* (a layer's top-level files and folders: `rt::table`, `rt::signals`,
//! `process::spawn`...) there is no cycle, so each module reads top-down. `lib.rs` is the
//! map of the crate: it declares the layers and re-exports the public API, and holds no code.
//!
//! The check reads every `.rs` file under `mote/src`, takes the `crate::` and `super::` paths
//! out of its code (in `use` lines and inline; comments, doc comments and test-only code
//! such as `#[cfg(test)] mod tests` are left out: tests may drive a module through the
//! public API), maps each path to the layer and module it names (a path through a
//! re-export of `lib.rs`, such as `crate::exit`, to where the item is defined) and reports
//! every upward use and every cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layer folders, bottom to top.
const LAYERS: [&str; 4] = ["values", "rt", "process", "otp"];

#[test]
fn no_layer_uses_a_layer_above_it_and_no_module_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    read_tree(&src, &src, &mut files);
    assert!(
        files.len() > 20,
        "expected mote's sources under {}, found {} files",
        src.display(),
        files.len()
    );
    let problems = check(&files);
    assert!(
        problems.is_empty(),
        "the layer rule of mote/src is broken (see the docs of mote/tests/layers.rs):\n  {}",
        problems.join("\n  ")
    );
}

/// The check itself must be able to fail: an upward use, a cycle, a path it cannot place,
/// a file outside the layers and code in `lib.rs` are all reported.
#[test]
fn the_check_reports_upward_uses_cycles_and_strays() {
    let lib = "mod values { pub(crate) mod pid; }\n\
               mod rt { pub(crate) mod table; pub(crate) mod signals; }\n\
               mod process { pub(crate) mod spawn; }\n\
               pub use process::spawn::{spawn, SpawnOptions};\n\
               pub use values::pid::Pid;\n";
    let files = |extra: &[(&str, &str)]| {
        let mut files: Vec<(PathBuf, String)> = vec![
            ("lib.rs".into(), lib.into()),
            ("values/pid.rs".into(), "pub struct Pid;".into()),
            (
                "rt/table.rs".into(),
                "use crate::values::pid::Pid;\n// crate::process::spawn in a comment is fine\n\
                 #[cfg(all(test, not(loom)))]\nmod tests { use crate::spawn; }\n"
                    .into(),
            ),
            (
                "rt/signals.rs".into(),
                "use crate::rt::table;\n#[cfg(all(test, loom))]\nmod loom_tests;\n".into(),
            ),
            (
                "rt/signals/loom_tests.rs".into(),
                "use crate::process::spawn;".into(),
            ),
            (
                "process/spawn.rs".into(),
                "use crate::rt::{signals, table::Slot};\npub fn spawn() {}".into(),
            ),
        ];
        files.extend(extra.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())));
        files
    };
    assert_eq!(check(&files(&[])), Vec::<String>::new());

    let upward = check(&files(&[("rt/timer.rs", "fn f() { crate::spawn(); }")]));
    assert_eq!(upward.len(), 1, "{upward:?}");
    assert!(upward[0].contains("rt/timer.rs") && upward[0].contains("crate::spawn"));
    assert!(upward[0].contains("layer `process`"), "{upward:?}");

    let cycle = check(&files(&[("rt/extra.rs", "use super::signals::X;")]));
    assert_eq!(
        cycle,
        Vec::<String>::new(),
        "rt::extra -> rt::signals is no cycle"
    );
    let cycle = check(&files(&[
        ("rt/a/mod.rs", "use crate::rt::b::Y;"),
        ("rt/b.rs", "use super::a::inner::X;"),
    ]));
    assert_eq!(cycle.len(), 1, "{cycle:?}");
    assert!(cycle[0].contains("rt::a -> rt::b -> rt::a"), "{cycle:?}");

    let strays = check(&files(&[
        ("stray.rs", ""),
        ("rt/x.rs", "use crate::nowhere::Thing;"),
        ("rt/y.rs", "use crate::rt::missing::Thing;"),
    ]));
    assert_eq!(strays.len(), 3, "{strays:?}");

    let mut with_code = files(&[]);
    with_code[0].1.push_str("pub fn self_id() -> u32 { 1 }\n");
    assert_eq!(check(&with_code).len(), 1);
}

/// Every `.rs` file under `dir`, with its path relative to `root`.
fn read_tree(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            read_tree(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            let relative = path.strip_prefix(root).expect("under root").to_path_buf();
            out.push((relative, text));
        }
    }
}

/// A module of the layer graph: a layer's index and the module's name within it.
type Module = (usize, String);

fn module_name((layer, name): &Module) -> String {
    format!("{}::{name}", LAYERS[*layer])
}

/// The problems with `files` (paths relative to `mote/src`), one line each.
fn check(files: &[(PathBuf, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    // The modules of each layer, from the tree: `rt/table/` and `rt/sync.rs` are modules.
    let mut modules: BTreeSet<Module> = BTreeSet::new();
    for (path, _) in files {
        let parts = components(path);
        if let [layer, module, ..] = parts.as_slice() {
            if let Some(layer) = LAYERS.iter().position(|l| l == layer) {
                modules.insert((layer, module.trim_end_matches(".rs").to_string()));
            }
        }
    }
    let lib = files
        .iter()
        .find(|(p, _)| p == Path::new("lib.rs"))
        .map(|(_, text)| strip(text))
        .unwrap_or_default();
    if lib.contains("fn ") {
        problems.push(
            "lib.rs defines a function: it is the map of the crate (mod and pub use lines); \
             move the function to the module it belongs to"
                .to_string(),
        );
    }
    let reexports = reexports(&lib);
    // Files of test-only modules declared out of line (`#[cfg(test)] mod loom_tests;`).
    let mut test_files: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut code: BTreeMap<&Path, String> = BTreeMap::new();
    for (path, text) in files {
        let (stripped, test_modules) = strip_with_test_modules(text);
        let here = module_path(&components(path));
        for name in test_modules {
            let mut child = here.clone();
            child.push(name);
            test_files.insert(child);
        }
        code.insert(path, stripped);
    }
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (path, _) in files {
        let parts = components(path);
        let here = module_path(&parts);
        if path == Path::new("lib.rs") || test_files.iter().any(|t| here.starts_with(t)) {
            continue;
        }
        let layer = parts
            .first()
            .and_then(|first| LAYERS.iter().position(|l| l == first));
        let (Some(layer), true) = (layer, parts.len() >= 2) else {
            problems.push(format!(
                "{} is outside the layer folders ({}); move it into the layer it belongs to",
                path.display(),
                LAYERS.join(", ")
            ));
            continue;
        };
        let from: Module = (layer, parts[1].trim_end_matches(".rs").to_string());
        for used in paths(&code[path.as_path()]) {
            let Some(absolute) = resolve(&used, &here) else {
                problems.push(format!(
                    "{}: `{used}` climbs above the crate root",
                    path.display()
                ));
                continue;
            };
            let Some(to) = place(&absolute, &modules, &reexports) else {
                problems.push(format!(
                    "{}: cannot tell which module `{used}` names; use a path through its \
                     layer (crate::rt::table::...) or a re-export of lib.rs",
                    path.display()
                ));
                continue;
            };
            if to.0 > from.0 {
                problems.push(format!(
                    "{} (layer `{}`) uses `{used}`, of layer `{}`: a layer may use only \
                     itself and the layers below it ({})",
                    path.display(),
                    LAYERS[from.0],
                    LAYERS[to.0],
                    LAYERS.join(" < ")
                ));
            }
            if to != from {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    problems.extend(cycles(&edges).into_iter().map(|(cycle, tangle)| {
        let names = |modules: &[Module]| modules.iter().map(module_name).collect::<Vec<_>>();
        format!(
            "module cycle: {} (modules that reach each other: {}; each module must read \
             top-down: move the shared part into the lower module, or invert the call)",
            names(&cycle).join(" -> "),
            names(&tangle).join(", ")
        )
    }));
    problems
}

fn components(path: &Path) -> Vec<String> {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect()
}

/// The Rust module path of a file: `rt/table/slot.rs` is `rt::table::slot`,
/// `rt/table/mod.rs` is `rt::table`.
fn module_path(parts: &[String]) -> Vec<String> {
    let mut path: Vec<String> = parts
        .iter()
        .map(|p| p.trim_end_matches(".rs").to_string())
        .collect();
    if path.last().is_some_and(|last| last == "mod") {
        path.pop();
    }
    path
}

/// The names `lib.rs` re-exports, and the module each comes from:
/// `pub use process::spawn::{spawn, SpawnOptions};` maps `spawn` to `process::spawn`,
/// `pub use otp::{server, task};` maps `server` to `otp::server`.
fn reexports(lib: &str) -> BTreeMap<String, Vec<String>> {
    let mut map = BTreeMap::new();
    for statement in lib.split(';') {
        let Some(at) = statement.find("pub use ") else {
            continue;
        };
        let path = statement[at + "pub use ".len()..].replace(char::is_whitespace, "");
        let (prefix, names) = match path.split_once('{') {
            Some((prefix, names)) => (prefix.trim_end_matches("::"), names.trim_end_matches('}')),
            None => match path.rsplit_once("::") {
                Some((prefix, name)) => (prefix, name),
                None => continue,
            },
        };
        let segments: Vec<String> = prefix.split("::").map(str::to_string).collect();
        for name in names.split(',').filter(|n| !n.is_empty()) {
            let mut target = segments.clone();
            if segments.len() == 1 {
                // `pub use otp::{server}`: the name is the module itself.
                target.push(name.to_string());
            }
            map.insert(name.to_string(), target);
        }
    }
    map
}

/// Turns a `super::`/`self::` path into one from the crate root (`None`: above the root).
fn resolve(used: &str, here: &[String]) -> Option<Vec<String>> {
    let mut segments = used.split("::").map(str::to_string).peekable();
    let mut base: Vec<String> = match segments.peek().map(String::as_str) {
        Some("crate") => {
            segments.next();
            Vec::new()
        }
        _ => here.to_vec(),
    };
    while let Some(next) = segments.peek() {
        match next.as_str() {
            "super" => {
                base.pop()?;
                segments.next();
            }
            "self" => {
                segments.next();
            }
            _ => break,
        }
    }
    base.extend(segments);
    Some(base)
}

/// The module an absolute path (from the crate root) names.
fn place(
    path: &[String],
    modules: &BTreeSet<Module>,
    reexports: &BTreeMap<String, Vec<String>>,
) -> Option<Module> {
    let first = path.first()?;
    let expanded;
    let path = match LAYERS.iter().position(|l| l == first) {
        Some(_) => path,
        None => {
            expanded = reexports.get(first)?.clone();
            &expanded[..]
        }
    };
    let layer = LAYERS.iter().position(|l| *l == path[0])?;
    let module = (layer, path.get(1)?.clone());
    modules.contains(&module).then_some(module)
}

/// The `crate::`, `super::` and `self::` paths of some code, with use groups expanded:
/// `use crate::rt::{signals, table::Slot}` gives `crate::rt::signals` and
/// `crate::rt::table::Slot`.
fn paths(code: &str) -> Vec<String> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let after_colons = i >= 2 && &code[i - 2..i] == "::";
        let rest = &code[i..];
        if starts_word
            && !after_colons
            && ["crate::", "super::", "self::"]
                .iter()
                .any(|p| rest.starts_with(p))
        {
            let (used, len) = path_at(rest);
            found.extend(used);
            i += len.max(1);
        } else {
            i += 1;
        }
    }
    found
}

/// The paths of the path (or use tree) at the start of `code`, and its length.
fn path_at(code: &str) -> (Vec<String>, usize) {
    let bytes = code.as_bytes();
    let mut end = 0;
    while end < bytes.len()
        && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_' || bytes[end] == b':')
    {
        end += 1;
    }
    let prefix = code[..end].trim_end_matches(':');
    if code[end..].starts_with('{') && code[..end].ends_with("::") {
        // A use group: split its top-level items.
        let mut depth = 0;
        let mut close = end;
        for (k, c) in code[end..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = end + k;
                        break;
                    }
                }
                _ => {}
            }
        }
        let inner = &code[end + 1..close];
        let mut items = Vec::new();
        let mut depth = 0;
        let mut start = 0;
        for (k, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(&inner[start..k]);
                    start = k + 1;
                }
                _ => {}
            }
        }
        items.push(&inner[start..]);
        let mut out = Vec::new();
        for item in items.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
            let item = item.split(" as ").next().unwrap_or(item).trim();
            if item == "self" {
                out.push(prefix.to_string());
            } else {
                let (nested, _) = path_at(item);
                match nested.is_empty() {
                    true => out.push(format!("{prefix}::{item}")),
                    false => out.extend(nested.into_iter().map(|n| format!("{prefix}::{n}"))),
                }
            }
        }
        return (out, close + 1);
    }
    if prefix.is_empty() {
        return (Vec::new(), end);
    }
    (vec![prefix.to_string()], end)
}

/// The code of a file without comments, string and char literals, and test-only items
/// (`#[cfg(test)]`, `#[cfg(all(test, ...))]`).
fn strip(text: &str) -> String {
    strip_with_test_modules(text).0
}

/// [`strip`], and the names of the test-only modules the file declares out of line
/// (`#[cfg(test)] mod tests;`): their files are test code too.
fn strip_with_test_modules(text: &str) -> (String, Vec<String>) {
    let code = strip_comments_and_literals(text);
    let mut test_modules = Vec::new();
    let mut out = String::with_capacity(code.len());
    let mut rest = code.as_str();
    while let Some(at) = rest.find("#[cfg(") {
        out.push_str(&rest[..at]);
        let attribute_end = matching(rest, at + 1, '[', ']').unwrap_or(rest.len() - 1);
        let predicate: String = rest[at + "#[cfg(".len()..attribute_end]
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let predicate = predicate.trim_end_matches(')');
        let test_only = predicate == "test"
            || predicate
                .strip_prefix("all(")
                .is_some_and(|args| args.split(',').any(|a| a.trim_end_matches(')') == "test"));
        if !test_only {
            out.push_str(&rest[at..=attribute_end]);
            rest = &rest[attribute_end + 1..];
            continue;
        }
        // Skip the item: up to its `;`, or its first `{ ... }` block.
        let item = &rest[attribute_end + 1..];
        let semicolon = item.find(';');
        let brace = item.find('{');
        let skip = match (semicolon, brace) {
            (Some(s), Some(b)) if s < b => s + 1,
            (_, Some(b)) => matching(item, b, '{', '}').map_or(item.len(), |e| e + 1),
            (Some(s), None) => s + 1,
            (None, None) => item.len(),
        };
        if let Some(name) = item[..skip]
            .trim()
            .strip_suffix(';')
            .and_then(|declaration| {
                declaration
                    .split_whitespace()
                    .skip_while(|w| *w != "mod")
                    .nth(1)
            })
        {
            test_modules.push(name.to_string());
        }
        rest = &item[skip..];
    }
    out.push_str(rest);
    (out, test_modules)
}

/// The index of the bracket closing the one at `open`.
fn matching(text: &str, open: usize, left: char, right: char) -> Option<usize> {
    let mut depth = 0;
    for (k, c) in text[open..].char_indices() {
        if c == left {
            depth += 1;
        } else if c == right {
            depth -= 1;
            if depth == 0 {
                return Some(open + k);
            }
        }
    }
    None
}

/// Blanks out comments (doc comments included), string literals and char literals, so
/// that only code is left to search for paths.
fn strip_comments_and_literals(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && is_raw_string(&chars, i) {
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            i += 2 + hashes;
            while i < chars.len() {
                if chars[i] == '"' && chars[i + 1..].iter().take(hashes).all(|&h| h == '#') {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            out.push_str("\"\"");
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && is_char_literal(&chars, i) {
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_raw_string(chars: &[char], i: usize) -> bool {
    let before_ok = i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
    before_ok && chars.get(i + 1 + hashes) == Some(&'"')
}

/// A `'` that opens a char literal (`'a'`, `'\n'`), not a lifetime (`'a`, `'static`).
fn is_char_literal(chars: &[char], i: usize) -> bool {
    match chars.get(i + 1) {
        Some('\\') => true,
        Some(_) => chars.get(i + 2) == Some(&'\''),
        None => false,
    }
}

/// The tangles of a directed graph (modules that all reach each other), each with one
/// cycle through it, as a path that returns to its start.
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<(Vec<Module>, Vec<Module>)> {
    // Tarjan's strongly connected components: every component of more than one module
    // holds a cycle; report one cycle through it.
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<Module, usize>,
        low: BTreeMap<Module, usize>,
        stack: Vec<Module>,
        on_stack: BTreeSet<Module>,
        components: Vec<Vec<Module>>,
    }
    fn visit(state: &mut State<'_>, node: &Module) {
        let n = state.index.len();
        state.index.insert(node.clone(), n);
        state.low.insert(node.clone(), n);
        state.stack.push(node.clone());
        state.on_stack.insert(node.clone());
        for next in state.edges.get(node).into_iter().flatten() {
            if !state.index.contains_key(next) {
                visit(state, next);
                let low = state.low[node].min(state.low[next]);
                state.low.insert(node.clone(), low);
            } else if state.on_stack.contains(next) {
                let low = state.low[node].min(state.index[next]);
                state.low.insert(node.clone(), low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(top) = state.stack.pop() {
                state.on_stack.remove(&top);
                let done = &top == node;
                component.push(top);
                if done {
                    break;
                }
            }
            if component.len() > 1 {
                state.components.push(component);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for node in edges.keys() {
        if !state.index.contains_key(node) {
            visit(&mut state, node);
        }
    }
    state
        .components
        .iter()
        .map(|component| {
            let members: BTreeSet<&Module> = component.iter().collect();
            let start = component.iter().min().expect("a non-empty component");
            let tangle = members.iter().map(|&m| m.clone()).collect();
            (shortest_cycle(edges, start, &members), tangle)
        })
        .collect()
}

/// The shortest path from `start` back to itself inside `members` (breadth first).
fn shortest_cycle(
    edges: &BTreeMap<Module, BTreeSet<Module>>,
    start: &Module,
    members: &BTreeSet<&Module>,
) -> Vec<Module> {
    let mut came_from: BTreeMap<Module, Module> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.clone()]);
    while let Some(node) = queue.pop_front() {
        for next in edges.get(&node).into_iter().flatten() {
            if !members.contains(next) {
                continue;
            }
            if next == start {
                let mut path = vec![start.clone(), node.clone()];
                let mut at = node.clone();
                while let Some(previous) = came_from.get(&at) {
                    path.push(previous.clone());
                    at = previous.clone();
                }
                // Built backwards: start, node, ..., start.
                path.reverse();
                return path;
            }
            if next != start && !came_from.contains_key(next) {
                came_from.insert(next.clone(), node.clone());
                queue.push_back(next.clone());
            }
        }
    }
    unreachable!("a strongly connected component of two or more modules has a cycle")
}
