//! Process groups (Erlang's `pg`): named groups of processes, for finding workers or
//! broadcasting to them.
//!
//! A process [`join`]s a group by name and [`leave`]s it; [`members`] lists a group's
//! members, typed like [`lookup`](crate::lookup): `members::<M>` returns the members whose
//! mailbox takes `M`, as [`Pid<M>`]s, and skips the others. A process that ends leaves all
//! its groups by itself. Groups exist while they have members.
//!
//! Deviations from Erlang: there is one scope (the default one of `pg`), on this node, and
//! a group name is a string.
//!
//! ```
//! use mote::{pg, Process};
//!
//! mote::run(|mut p: Process<String>| async move {
//!     let me = p.pid();
//!     for _ in 0..3 {
//!         let worker = mote::spawn(move |mut w: Process<String>| async move {
//!             let job = w.recv().await;
//!             me.send(format!("done: {job}"));
//!         });
//!         pg::join("workers", worker).unwrap();
//!     }
//!     // Broadcast to the group.
//!     for worker in pg::members::<String>("workers") {
//!         worker.send("resize".to_string());
//!     }
//!     for _ in 0..3 {
//!         assert_eq!(p.recv().await, "done: resize");
//!     }
//! })
//! .unwrap();
//! ```

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use parking_lot::Mutex;

use crate::rt::signals;
use crate::rt::table::extras::ExitListener;
use crate::values::exit::ExitReason;
use crate::values::monitor_ref::MonitorRef;
use crate::values::pid::{Pid, ProcessId};

/// Errors of [`join`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PgError {
    /// The process to add is not alive (it is not added).
    #[error("noproc: the process to add to the group is not alive")]
    NoProc,
}

struct Member {
    id: ProcessId,
    message_type: TypeId,
}

/// What pg knows of one member process.
struct Joined {
    /// The watch that removes the process from its groups when it ends: one per process,
    /// however many joins.
    watch: MonitorRef,
    /// The groups it joined, once per join.
    groups: Vec<Arc<str>>,
}

#[derive(Default)]
struct Groups {
    /// Each group's members, once per join, in the order they joined.
    groups: HashMap<Arc<str>, Vec<Member>>,
    joined: HashMap<ProcessId, Joined>,
}

static GROUPS: LazyLock<Mutex<Groups>> = LazyLock::new(Default::default);

/// Removes a process from all its groups when it ends.
struct Departure(ProcessId);

impl ExitListener for Departure {
    fn exited(&self, _reason: &ExitReason) {
        let id = self.0;
        let mut g = GROUPS.lock();
        let Some(joined) = g.joined.remove(&id) else {
            return;
        };
        for group in joined.groups {
            if let Some(members) = g.groups.get_mut(&group) {
                members.retain(|m| m.id != id);
                if members.is_empty() {
                    g.groups.remove(&group);
                }
            }
        }
    }
}

/// Adds `pid` to `group` (Erlang's `pg:join/2`), creating the group if needed.
///
/// A process may join a group several times: it is then listed once per join, and must
/// [`leave`] as many times. It leaves all its groups when it ends. A process that is not
/// alive is not added: `Err(PgError::NoProc)`.
///
/// ```
/// use mote::{pg, Process};
/// mote::run(|p: Process<()>| async move {
///     pg::join("join-doc", p.pid()).unwrap();
///     pg::join("join-doc", p.pid()).unwrap();
///     assert_eq!(pg::members::<()>("join-doc"), vec![p.pid(), p.pid()]);
///
///     let gone = mote::spawn(|_c: Process<()>| async {});
///     while mote::is_alive(gone) {
///         mote::yield_now().await;
///     }
///     assert_eq!(pg::join("join-doc", gone), Err(pg::PgError::NoProc));
/// })
/// .unwrap();
/// ```
pub fn join<M: 'static>(group: &str, pid: Pid<M>) -> Result<(), PgError> {
    let id = pid.id();
    let mut g = GROUPS.lock();
    let name = match g.groups.get_key_value(group) {
        Some((name, _)) => Arc::clone(name),
        None => Arc::from(group),
    };
    match g.joined.get_mut(&id) {
        Some(joined) => {
            // Its exit may be under way, its removal waiting for this lock.
            if !crate::is_alive(id) {
                return Err(PgError::NoProc);
            }
            joined.groups.push(Arc::clone(&name));
        }
        None => {
            // Under the groups lock: if the process ends from now on, its removal waits
            // for this join to be recorded, then undoes it.
            let watch = signals::watch(id, Arc::new(Departure(id))).ok_or(PgError::NoProc)?;
            g.joined.insert(
                id,
                Joined {
                    watch,
                    groups: vec![Arc::clone(&name)],
                },
            );
        }
    }
    g.groups.entry(name).or_default().push(Member {
        id,
        message_type: TypeId::of::<M>(),
    });
    Ok(())
}

/// Removes one of `pid`'s joins of `group` (Erlang's `pg:leave/2`). Returns whether it was
/// a member.
///
/// ```
/// use mote::{pg, Process};
/// mote::run(|p: Process<()>| async move {
///     pg::join("leave-doc", p.pid()).unwrap();
///     assert!(pg::leave("leave-doc", p.pid()));
///     assert!(!pg::leave("leave-doc", p.pid()));
///     assert!(pg::members::<()>("leave-doc").is_empty());
/// })
/// .unwrap();
/// ```
pub fn leave<M>(group: &str, pid: Pid<M>) -> bool {
    let id = pid.id();
    let mut g = GROUPS.lock();
    let Some(members) = g.groups.get_mut(group) else {
        return false;
    };
    let Some(i) = members.iter().position(|m| m.id == id) else {
        return false;
    };
    members.remove(i);
    if members.is_empty() {
        g.groups.remove(group);
    }
    if let Some(joined) = g.joined.get_mut(&id) {
        if let Some(i) = joined.groups.iter().position(|name| &**name == group) {
            joined.groups.swap_remove(i);
        }
        if joined.groups.is_empty() {
            let watch = joined.watch;
            g.joined.remove(&id);
            // In no group any more: nothing of pg stays in the process.
            signals::unwatch(id, watch);
        }
    }
    true
}

/// The members of `group` whose mailbox takes `M`, in the order they joined, once per join
/// (Erlang's `pg:get_members/1`). Members of another message type are not returned (see
/// [`member_ids`] for all of them). Empty if the group does not exist.
///
/// A process that has ended is removed as part of its exit; a monitor's [`Down`] for it
/// may be delivered a moment before the removal is visible here.
///
/// [`Down`]: crate::Down
///
/// ```
/// use mote::{pg, Process};
/// mote::run(|p: Process<u32>| async move {
///     let other = mote::spawn(|mut c: Process<String>| async move { c.recv().await; });
///     pg::join("typed-doc", p.pid()).unwrap();
///     pg::join("typed-doc", other).unwrap();
///     assert_eq!(pg::members::<u32>("typed-doc"), vec![p.pid()]);
///     assert_eq!(pg::members::<String>("typed-doc"), vec![other]);
///     assert_eq!(pg::member_ids("typed-doc"), vec![p.id(), other.id()]);
///     other.send(String::new());
/// })
/// .unwrap();
/// ```
pub fn members<M: 'static>(group: &str) -> Vec<Pid<M>> {
    let message_type = TypeId::of::<M>();
    GROUPS
        .lock()
        .groups
        .get(group)
        .map_or_else(Vec::new, |members| {
            members
                .iter()
                .filter(|m| m.message_type == message_type)
                // SAFETY: a member's message type was recorded from the `Pid<M>` it joined
                // with, and was just compared with `M`.
                .map(|m| unsafe { Pid::from_id(m.id) })
                .collect()
        })
}

/// All members of `group`, whatever their message type, in the order they joined, once per
/// join.
///
/// ```
/// use mote::{pg, Process};
/// mote::run(|p: Process<()>| async move {
///     pg::join("ids-doc", p.pid()).unwrap();
///     assert_eq!(pg::member_ids("ids-doc"), vec![p.id()]);
/// })
/// .unwrap();
/// ```
pub fn member_ids(group: &str) -> Vec<ProcessId> {
    GROUPS
        .lock()
        .groups
        .get(group)
        .map_or_else(Vec::new, |members| members.iter().map(|m| m.id).collect())
}

/// The groups that have at least one member, sorted by name (Erlang's
/// `pg:which_groups/0`).
///
/// ```
/// use mote::{pg, Process};
/// mote::run(|p: Process<()>| async move {
///     pg::join("which-doc", p.pid()).unwrap();
///     assert!(pg::which_groups().iter().any(|g| &**g == "which-doc"));
///     pg::leave("which-doc", p.pid());
///     assert!(!pg::which_groups().iter().any(|g| &**g == "which-doc"));
/// })
/// .unwrap();
/// ```
pub fn which_groups() -> Vec<Arc<str>> {
    let mut names: Vec<Arc<str>> = GROUPS.lock().groups.keys().cloned().collect();
    names.sort_unstable();
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Process;

    fn watchers(id: ProcessId) -> usize {
        signals::peek_live(id, |_, s| s.as_ref().map_or(0, |s| s.watchers.len())).unwrap_or(0)
    }

    #[test]
    fn one_watch_per_member_removed_when_it_leaves_everything() {
        let counts = crate::run(|p: Process<()>| async move {
            let me = p.pid();
            // The root process of `run` has a watcher of its own (its exit hook).
            let base = watchers(me.id());
            join("unit-a", me).unwrap();
            join("unit-a", me).unwrap();
            join("unit-b", me).unwrap();
            let joined = watchers(me.id());
            leave("unit-a", me);
            leave("unit-b", me);
            let partly = watchers(me.id());
            leave("unit-a", me);
            let left = watchers(me.id());
            let known = GROUPS.lock().joined.contains_key(&me.id());
            (joined - base, partly - base, left - base, known)
        });
        assert_eq!(counts, Ok((1, 1, 0, false)));
    }
}
