//! `serde` support (the `serde` feature): process ids and exit reasons as data.
//!
//! * [`ProcessId`] serializes as a struct `{node, number, serial, creation}` and
//!   deserializes back to the same id. A deserialized id is a plain value: it names a
//!   process only while that process lives (the serial guards against reuse).
//! * [`Pid<M>`] serializes as its `ProcessId`. It does not deserialize: a typed pid made
//!   from data could name a process whose mailbox has another type. Deserialize a
//!   `ProcessId` and get the typed address with a checked lookup
//!   ([`ServerRef::from_id`](crate::server::ServerRef::from_id), [`lookup`](crate::lookup)).
//! * [`Atom`](crate::Atom) serializes as its text (a registered name in a
//!   [`ProcessInfo`](crate::ProcessInfo), say).
//! * [`ExitReason`] serializes as its Erlang text (`normal`, `{panic,<<"boom">>}`, ...),
//!   for logs and reports. It does not deserialize: the text form of a term has no parser
//!   here, and terms themselves have no serde form yet.
//!
//! ```
//! # #[cfg(feature = "serde")] {
//! let id = mote::run(|p: mote::Process<()>| async move { p.id() }).unwrap();
//! let json = serde_json::to_string(&id).unwrap();
//! assert_eq!(serde_json::from_str::<mote::ProcessId>(&json).unwrap(), id);
//! assert_eq!(serde_json::to_string(&mote::ExitReason::Normal).unwrap(), r#""normal""#);
//! # }
//! ```

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use crate::values::exit::ExitReason;
use crate::values::pid::{Pid, ProcessId};
use crate::values::term::Atom;

const FIELDS: &[&str] = &["node", "number", "serial", "creation"];

/// The struct name a [`ProcessId`] is serialized under: a format that has a word of its own
/// for process ids (Erlang's term format) recognizes it by this name; others ignore it.
pub(crate) const PROCESS_ID_STRUCT: &str = "mote::ProcessId";

impl Serialize for ProcessId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct(PROCESS_ID_STRUCT, 4)?;
        s.serialize_field("node", &self.node())?;
        s.serialize_field("number", &self.number())?;
        s.serialize_field("serial", &self.serial())?;
        s.serialize_field("creation", &self.creation())?;
        s.end()
    }
}

impl<'de> Deserialize<'de> for ProcessId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = ProcessId;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a process id {node, number, serial, creation}")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<ProcessId, A::Error> {
                let mut next = |i| {
                    seq.next_element::<u32>()?
                        .ok_or_else(|| de::Error::invalid_length(i, &self))
                };
                Ok(ProcessId::from_parts(
                    next(0)?,
                    next(1)?,
                    next(2)?,
                    next(3)?,
                ))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ProcessId, A::Error> {
                let mut parts = [None::<u32>; 4];
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    let i = FIELDS
                        .iter()
                        .position(|f| *f == key)
                        .ok_or_else(|| de::Error::unknown_field(&key, FIELDS))?;
                    parts[i] = Some(map.next_value()?);
                }
                let get = |i: usize| parts[i].ok_or_else(|| de::Error::missing_field(FIELDS[i]));
                Ok(ProcessId::from_parts(get(0)?, get(1)?, get(2)?, get(3)?))
            }
        }
        deserializer.deserialize_struct(PROCESS_ID_STRUCT, FIELDS, Fields)
    }
}

impl<M> Serialize for Pid<M> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.id().serialize(serializer)
    }
}

impl Serialize for Atom {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self)
    }
}

impl Serialize for ExitReason {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}
