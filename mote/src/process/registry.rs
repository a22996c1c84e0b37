//! The name registry: one name per process, one process per name (Erlang's `register`).

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use parking_lot::Mutex;

use crate::rt::signals;
use crate::rt::table::extras::RegisteredName;
use crate::values::pid::{Pid, ProcessId};
use crate::values::term::Atom;

struct Entry {
    id: ProcessId,
    message_type: TypeId,
    type_name: &'static str,
}

static NAMES: LazyLock<Mutex<HashMap<Atom, Entry>>> = LazyLock::new(Default::default);

/// The atom a process can be registered as: at most 255 characters, and not `undefined`.
pub(crate) fn name_atom(name: &str) -> Result<Atom, RegistryError> {
    if name == "undefined" {
        return Err(RegistryError::ReservedName);
    }
    Atom::new(name).map_err(|e| RegistryError::NameTooLong { chars: e.chars })
}

/// Registry errors (Erlang raises `badarg` for all of them; mote says which).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// The name belongs to another live process.
    #[error("the name {name:?} is already registered to {owner}")]
    NameTaken {
        /// The name asked for.
        name: Arc<str>,
        /// Its current owner.
        owner: ProcessId,
    },
    /// The process already has a name (a process has at most one).
    #[error("the process already has the name {0:?}")]
    AlreadyNamed(Arc<str>),
    /// The process is not alive.
    #[error("noproc: the process is not alive")]
    NoProc,
    /// No process has this name.
    #[error("no process is registered as {0:?}")]
    NotRegistered(Arc<str>),
    /// Names are atoms, of at most 255 characters; this one is longer (Erlang's
    /// `system_limit` when the atom is made).
    #[error("a name is an atom, of at most 255 characters; this one has {chars}")]
    NameTooLong {
        /// The name's length in characters.
        chars: usize,
    },
    /// `undefined` cannot be registered: it is how Erlang's `whereis` says "nobody"
    /// (Erlang's `badarg`).
    #[error("the name undefined cannot be registered")]
    ReservedName,
    /// The named process's mailbox takes another message type.
    #[error("{name:?} takes messages of type {actual}, not {expected}")]
    WrongType {
        /// The name looked up.
        name: Arc<str>,
        /// The type the caller asked for.
        expected: &'static str,
        /// The process's message type.
        actual: &'static str,
    },
}

/// Registers `pid` under `name`. The name is released when the process ends.
///
/// A name is an atom: at most 255 characters ([`RegistryError::NameTooLong`]), and not
/// `undefined` ([`RegistryError::ReservedName`]).
///
/// ```
/// use mote::{Process, RegistryError};
/// mote::run(|p: Process<u8>| async move {
///     mote::register("logger", p.pid()).unwrap();
///     assert_eq!(mote::whereis("logger"), Some(p.id()));
///     assert!(matches!(mote::register("logger", p.pid()), Err(RegistryError::NameTaken { .. })));
/// })
/// .unwrap();
/// ```
pub fn register<M: 'static>(name: &str, pid: Pid<M>) -> Result<(), RegistryError> {
    let name = name_atom(name)?;
    let mut names = NAMES.lock();
    if let Some(entry) = names.get(&name) {
        return Err(RegistryError::NameTaken {
            name: name.as_str().into(),
            owner: entry.id,
        });
    }
    let outcome = signals::with_live(pid.id(), |_, s| match &s.name {
        Some(existing) => Err(RegistryError::AlreadyNamed(existing.name.as_str().into())),
        None => {
            s.name = Some(RegisteredName {
                name: name.clone(),
                release,
            });
            Ok(())
        }
    });
    outcome.unwrap_or(Err(RegistryError::NoProc))?;
    names.insert(
        name,
        Entry {
            id: pid.id(),
            message_type: TypeId::of::<M>(),
            type_name: std::any::type_name::<M>(),
        },
    );
    Ok(())
}

/// Removes a name.
///
/// ```
/// mote::run(|p: mote::Process<u8>| async move {
///     mote::register("tmp", p.pid()).unwrap();
///     mote::unregister("tmp").unwrap();
///     assert_eq!(mote::whereis("tmp"), None);
/// })
/// .unwrap();
/// ```
pub fn unregister(name: &str) -> Result<(), RegistryError> {
    let entry = NAMES
        .lock()
        .remove(name)
        .ok_or_else(|| RegistryError::NotRegistered(name.into()))?;
    let _ = signals::peek_live(entry.id, |_, s| {
        if let Some(s) = s {
            s.name = None
        }
    });
    Ok(())
}

/// The process registered under `name`, if any.
///
/// ```
/// assert_eq!(mote::whereis("nobody-has-this-name"), None);
/// ```
pub fn whereis(name: &str) -> Option<ProcessId> {
    NAMES.lock().get(name).map(|e| e.id)
}

/// The typed address of the process registered under `name`.
///
/// ```
/// mote::run(|p: mote::Process<u8>| async move {
///     mote::register("typed", p.pid()).unwrap();
///     assert_eq!(mote::lookup::<u8>("typed"), Ok(p.pid()));
///     assert!(mote::lookup::<String>("typed").is_err());
/// })
/// .unwrap();
/// ```
pub fn lookup<M: 'static>(name: &str) -> Result<Pid<M>, RegistryError> {
    let names = NAMES.lock();
    let entry = names
        .get(name)
        .ok_or_else(|| RegistryError::NotRegistered(name.into()))?;
    if entry.message_type != TypeId::of::<M>() {
        return Err(RegistryError::WrongType {
            name: name.into(),
            expected: std::any::type_name::<M>(),
            actual: entry.type_name,
        });
    }
    // SAFETY: the entry's message type was recorded from the `Pid<M>` it was registered
    // with, and was just compared with `M`.
    Ok(unsafe { Pid::from_id(entry.id) })
}

/// Sends to the process registered under `name`. An unregistered name is an error
/// (Erlang's `badarg`); a registered process that has just died drops the message silently.
///
/// ```
/// mote::run(|mut p: mote::Process<u8>| async move {
///     mote::register("inbox", p.pid()).unwrap();
///     mote::send_named("inbox", 9u8).unwrap();
///     assert_eq!(p.recv().await, 9);
///     assert!(mote::send_named("nobody", 1u8).is_err());
/// })
/// .unwrap();
/// ```
pub fn send_named<M: Send + 'static>(name: &str, message: M) -> Result<(), RegistryError> {
    lookup::<M>(name)?.send(message);
    Ok(())
}

/// The name a process is registered under, if any.
///
/// ```
/// mote::run(|p: mote::Process<u8>| async move {
///     mote::register("me", p.pid()).unwrap();
///     assert_eq!(mote::registered_name(p.id()).as_deref(), Some("me"));
/// })
/// .unwrap();
/// ```
pub fn registered_name(id: ProcessId) -> Option<Atom> {
    signals::peek_live(id, |_, s| Some(s.as_ref()?.name.as_ref()?.name.clone())).flatten()
}

/// Frees a dying process's name (if it still owns it). Handed to the exit path with the
/// name ([`RegisteredName`]), which calls it before the process's exit signals go out.
fn release(name: &str, id: ProcessId) {
    let mut names = NAMES.lock();
    if names.get(name).is_some_and(|e| e.id == id) {
        names.remove(name);
    }
}
