//! Control messages: the first term of every distribution message.

use crate::etf::{
    Atom, DecodeError, Decoder, EncodeError, Encoder, ErlPid, ErlRef, Event, WireTerm,
};

/// A process named in a control message: by pid, or by registered name on the receiving
/// node (monitors by name).
///
/// ```
/// use mote_dist::connection::{ControlMessage, ProcessRef};
/// use mote_dist::etf::{Atom, ErlPid, ErlRef};
///
/// let node = Atom::new("a@h").unwrap();
/// let from = ErlPid { node: node.clone(), id: 1, serial: 0, creation: 1 };
/// let by_name = ControlMessage::MonitorP {
///     from,
///     to: ProcessRef::Name(Atom::new("logger").unwrap()),
///     reference: ErlRef::new(node, 1, &[1, 2, 3]).unwrap(),
/// };
/// assert_eq!(by_name.op(), 19);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum ProcessRef {
    /// A pid.
    Pid(ErlPid),
    /// A registered name.
    Name(Atom),
}

/// Every control message of the distribution protocol (op codes 1 to 36).
///
/// Ops marked "payload" are followed in the frame by a second term (the message, the
/// exit reason, or the spawn argument list), kept apart in [`DistMessage::payload`](super::DistMessage).
/// The `*Tt` variants carry a sequential-trace token, which this crate passes along
/// untouched.
///
/// ```
/// use mote_dist::connection::ControlMessage;
/// use mote_dist::etf::{Atom, ErlPid};
///
/// let from = ErlPid { node: Atom::new("a@h").unwrap(), id: 1, serial: 0, creation: 1 };
/// let reg_send = ControlMessage::RegSend { from, to_name: Atom::new("rex").unwrap() };
/// assert_eq!(reg_send.op(), 6);
/// assert!(reg_send.has_payload());
/// let mut out = Vec::new();
/// reg_send.encode(&mut out).unwrap();
/// let mut d = mote_dist::etf::Decoder::new(&out).unwrap();
/// assert_eq!(ControlMessage::decode(&mut d).unwrap(), reg_send);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
#[allow(missing_docs)] // fields are named after the tuple layout in each variant's doc
pub enum ControlMessage {
    /// 1: `{1, From, To}`.
    Link { from: ErlPid, to: ErlPid },
    /// 2: `{2, '', To}`; payload.
    Send { to: ErlPid },
    /// 3: `{3, From, To, Reason}`.
    Exit {
        from: ErlPid,
        to: ErlPid,
        reason: WireTerm,
    },
    /// 4: `{4, From, To}` (the old unlink, gone in OTP 26).
    Unlink { from: ErlPid, to: ErlPid },
    /// 5: `{5}`.
    NodeLink,
    /// 6: `{6, From, '', ToName}`; payload.
    RegSend { from: ErlPid, to_name: Atom },
    /// 7: `{7, From, To}`.
    GroupLeader { from: ErlPid, to: ErlPid },
    /// 8: `{8, From, To, Reason}` (`exit/2`).
    Exit2 {
        from: ErlPid,
        to: ErlPid,
        reason: WireTerm,
    },
    /// 12: `{12, '', To, Token}`; payload.
    SendTt { to: ErlPid, token: WireTerm },
    /// 13: `{13, From, To, Token, Reason}`.
    ExitTt {
        from: ErlPid,
        to: ErlPid,
        token: WireTerm,
        reason: WireTerm,
    },
    /// 16: `{16, From, '', ToName, Token}`; payload.
    RegSendTt {
        from: ErlPid,
        to_name: Atom,
        token: WireTerm,
    },
    /// 18: `{18, From, To, Token, Reason}`.
    Exit2Tt {
        from: ErlPid,
        to: ErlPid,
        token: WireTerm,
        reason: WireTerm,
    },
    /// 19: `{19, From, To, Ref}`: monitor a pid or a name.
    MonitorP {
        from: ErlPid,
        to: ProcessRef,
        reference: ErlRef,
    },
    /// 20: `{20, From, To, Ref}`.
    DemonitorP {
        from: ErlPid,
        to: ProcessRef,
        reference: ErlRef,
    },
    /// 21: `{21, From, To, Ref, Reason}`: the monitored process (pid or name) exited.
    MonitorPExit {
        from: ProcessRef,
        to: ErlPid,
        reference: ErlRef,
        reason: WireTerm,
    },
    /// 22: `{22, From, To}`; payload.
    SendSender { from: ErlPid, to: ErlPid },
    /// 23: `{23, From, To, Token}`; payload.
    SendSenderTt {
        from: ErlPid,
        to: ErlPid,
        token: WireTerm,
    },
    /// 24: `{24, From, To}`; payload: the reason.
    PayloadExit { from: ErlPid, to: ErlPid },
    /// 25: `{25, From, To, Token}`; payload: the reason.
    PayloadExitTt {
        from: ErlPid,
        to: ErlPid,
        token: WireTerm,
    },
    /// 26: `{26, From, To}`; payload: the reason (`exit/2`).
    PayloadExit2 { from: ErlPid, to: ErlPid },
    /// 27: `{27, From, To, Token}`; payload: the reason.
    PayloadExit2Tt {
        from: ErlPid,
        to: ErlPid,
        token: WireTerm,
    },
    /// 28: `{28, From, To, Ref}`; payload: the reason.
    PayloadMonitorPExit {
        from: ProcessRef,
        to: ErlPid,
        reference: ErlRef,
    },
    /// 29: `{29, ReqId, From, GroupLeader, {M, F, Arity}, OptList}`; payload: the
    /// argument list.
    SpawnRequest {
        req_id: ErlRef,
        from: ErlPid,
        group_leader: ErlPid,
        module: Atom,
        function: Atom,
        arity: u32,
        options: WireTerm,
    },
    /// 30: as 29 with a trace token; payload: the argument list.
    SpawnRequestTt {
        req_id: ErlRef,
        from: ErlPid,
        group_leader: ErlPid,
        module: Atom,
        function: Atom,
        arity: u32,
        options: WireTerm,
        token: WireTerm,
    },
    /// 31: `{31, ReqId, To, Flags, Result}`: `Result` is the new pid or an error atom;
    /// flag 1 = link set up, 2 = monitor set up.
    SpawnReply {
        req_id: ErlRef,
        to: ErlPid,
        flags: u32,
        result: WireTerm,
    },
    /// 32: as 31 with a trace token.
    SpawnReplyTt {
        req_id: ErlRef,
        to: ErlPid,
        flags: u32,
        result: WireTerm,
        token: WireTerm,
    },
    /// 33: `{33, From, Alias}`; payload.
    AliasSend { from: ErlPid, alias: ErlRef },
    /// 34: `{34, From, Alias, Token}`; payload.
    AliasSendTt {
        from: ErlPid,
        alias: ErlRef,
        token: WireTerm,
    },
    /// 35: `{35, Id, From, To}`: unlink, to be acknowledged.
    UnlinkId { id: u64, from: ErlPid, to: ErlPid },
    /// 36: `{36, Id, From, To}`.
    UnlinkIdAck { id: u64, from: ErlPid, to: ErlPid },
}

impl ControlMessage {
    /// The op code.
    pub fn op(&self) -> u8 {
        use ControlMessage::*;
        match self {
            Link { .. } => 1,
            Send { .. } => 2,
            Exit { .. } => 3,
            Unlink { .. } => 4,
            NodeLink => 5,
            RegSend { .. } => 6,
            GroupLeader { .. } => 7,
            Exit2 { .. } => 8,
            SendTt { .. } => 12,
            ExitTt { .. } => 13,
            RegSendTt { .. } => 16,
            Exit2Tt { .. } => 18,
            MonitorP { .. } => 19,
            DemonitorP { .. } => 20,
            MonitorPExit { .. } => 21,
            SendSender { .. } => 22,
            SendSenderTt { .. } => 23,
            PayloadExit { .. } => 24,
            PayloadExitTt { .. } => 25,
            PayloadExit2 { .. } => 26,
            PayloadExit2Tt { .. } => 27,
            PayloadMonitorPExit { .. } => 28,
            SpawnRequest { .. } => 29,
            SpawnRequestTt { .. } => 30,
            SpawnReply { .. } => 31,
            SpawnReplyTt { .. } => 32,
            AliasSend { .. } => 33,
            AliasSendTt { .. } => 34,
            UnlinkId { .. } => 35,
            UnlinkIdAck { .. } => 36,
        }
    }

    /// Whether a second term (message, reason or arguments) follows this one.
    pub fn has_payload(&self) -> bool {
        op_has_payload(self.op())
    }

    /// Appends the control term, version byte included.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        use ControlMessage::*;
        let mut e = Encoder::new(out);
        e.version();
        let op = i64::from(self.op());
        let empty = "";
        match self {
            Link { from, to }
            | Unlink { from, to }
            | GroupLeader { from, to }
            | SendSender { from, to }
            | PayloadExit { from, to }
            | PayloadExit2 { from, to } => {
                e.tuple_header(3)?.int(op).pid(from).pid(to);
            }
            Send { to } => {
                e.tuple_header(3)?.int(op).atom_unchecked(empty);
                e.pid(to);
            }
            Exit { from, to, reason } | Exit2 { from, to, reason } => {
                e.tuple_header(4)?.int(op).pid(from).pid(to);
                reason.write(&mut e)?;
            }
            NodeLink => {
                e.tuple_header(1)?.int(op);
            }
            RegSend { from, to_name } => {
                e.tuple_header(4)?.int(op).pid(from).atom_unchecked(empty);
                e.atom_unchecked(to_name.as_str());
            }
            SendTt { to, token } => {
                e.tuple_header(4)?.int(op).atom_unchecked(empty);
                e.pid(to);
                token.write(&mut e)?;
            }
            ExitTt {
                from,
                to,
                token,
                reason,
            }
            | Exit2Tt {
                from,
                to,
                token,
                reason,
            } => {
                e.tuple_header(5)?.int(op).pid(from).pid(to);
                token.write(&mut e)?;
                reason.write(&mut e)?;
            }
            RegSendTt {
                from,
                to_name,
                token,
            } => {
                e.tuple_header(5)?.int(op).pid(from).atom_unchecked(empty);
                e.atom_unchecked(to_name.as_str());
                token.write(&mut e)?;
            }
            MonitorP {
                from,
                to,
                reference,
            }
            | DemonitorP {
                from,
                to,
                reference,
            } => {
                e.tuple_header(4)?.int(op).pid(from);
                write_process(&mut e, to);
                e.reference(reference);
            }
            MonitorPExit {
                from,
                to,
                reference,
                reason,
            } => {
                e.tuple_header(5)?.int(op);
                write_process(&mut e, from);
                e.pid(to).reference(reference);
                reason.write(&mut e)?;
            }
            SendSenderTt { from, to, token }
            | PayloadExitTt { from, to, token }
            | PayloadExit2Tt { from, to, token } => {
                e.tuple_header(4)?.int(op).pid(from).pid(to);
                token.write(&mut e)?;
            }
            PayloadMonitorPExit {
                from,
                to,
                reference,
            } => {
                e.tuple_header(4)?.int(op);
                write_process(&mut e, from);
                e.pid(to).reference(reference);
            }
            SpawnRequest {
                req_id,
                from,
                group_leader,
                module,
                function,
                arity,
                options,
            } => {
                e.tuple_header(6)?
                    .int(op)
                    .reference(req_id)
                    .pid(from)
                    .pid(group_leader);
                write_mfa(&mut e, module, function, *arity)?;
                options.write(&mut e)?;
            }
            SpawnRequestTt {
                req_id,
                from,
                group_leader,
                module,
                function,
                arity,
                options,
                token,
            } => {
                e.tuple_header(7)?
                    .int(op)
                    .reference(req_id)
                    .pid(from)
                    .pid(group_leader);
                write_mfa(&mut e, module, function, *arity)?;
                options.write(&mut e)?;
                token.write(&mut e)?;
            }
            SpawnReply {
                req_id,
                to,
                flags,
                result,
            } => {
                e.tuple_header(5)?
                    .int(op)
                    .reference(req_id)
                    .pid(to)
                    .int(i64::from(*flags));
                result.write(&mut e)?;
            }
            SpawnReplyTt {
                req_id,
                to,
                flags,
                result,
                token,
            } => {
                e.tuple_header(6)?
                    .int(op)
                    .reference(req_id)
                    .pid(to)
                    .int(i64::from(*flags));
                result.write(&mut e)?;
                token.write(&mut e)?;
            }
            AliasSend { from, alias } => {
                e.tuple_header(3)?.int(op).pid(from).reference(alias);
            }
            AliasSendTt { from, alias, token } => {
                e.tuple_header(4)?.int(op).pid(from).reference(alias);
                token.write(&mut e)?;
            }
            UnlinkId { id, from, to } | UnlinkIdAck { id, from, to } => {
                e.tuple_header(4)?.int(op).u64(*id).pid(from).pid(to);
            }
        }
        Ok(())
    }

    /// Reads a control term from a decoder positioned at it.
    pub fn decode(d: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        use ControlMessage::*;
        let arity = match d.next_event()? {
            Event::Tuple(n) if n >= 1 => n,
            other => return Err(shape(format!("control message is not a tuple: {other:?}"))),
        };
        let op = match d.next_event()? {
            Event::Int(op) => op,
            other => return Err(shape(format!("control op is not an integer: {other:?}"))),
        };
        let expect = |n: u32| {
            if arity == n {
                Ok(())
            } else {
                Err(shape(format!(
                    "control op {op} has {arity} elements, expected {n}"
                )))
            }
        };
        let msg = match op {
            1 => {
                expect(3)?;
                Link {
                    from: pid(d)?,
                    to: pid(d)?,
                }
            }
            2 => {
                expect(3)?;
                d.skip()?;
                Send { to: pid(d)? }
            }
            3 => {
                expect(4)?;
                Exit {
                    from: pid(d)?,
                    to: pid(d)?,
                    reason: term(d)?,
                }
            }
            4 => {
                expect(3)?;
                Unlink {
                    from: pid(d)?,
                    to: pid(d)?,
                }
            }
            5 => {
                expect(1)?;
                NodeLink
            }
            6 => {
                expect(4)?;
                let from = pid(d)?;
                d.skip()?;
                RegSend {
                    from,
                    to_name: atom(d)?,
                }
            }
            7 => {
                expect(3)?;
                GroupLeader {
                    from: pid(d)?,
                    to: pid(d)?,
                }
            }
            8 => {
                expect(4)?;
                Exit2 {
                    from: pid(d)?,
                    to: pid(d)?,
                    reason: term(d)?,
                }
            }
            12 => {
                expect(4)?;
                d.skip()?;
                SendTt {
                    to: pid(d)?,
                    token: term(d)?,
                }
            }
            13 => {
                expect(5)?;
                ExitTt {
                    from: pid(d)?,
                    to: pid(d)?,
                    token: term(d)?,
                    reason: term(d)?,
                }
            }
            16 => {
                expect(5)?;
                let from = pid(d)?;
                d.skip()?;
                RegSendTt {
                    from,
                    to_name: atom(d)?,
                    token: term(d)?,
                }
            }
            18 => {
                expect(5)?;
                Exit2Tt {
                    from: pid(d)?,
                    to: pid(d)?,
                    token: term(d)?,
                    reason: term(d)?,
                }
            }
            19 => {
                expect(4)?;
                MonitorP {
                    from: pid(d)?,
                    to: process(d)?,
                    reference: reference(d)?,
                }
            }
            20 => {
                expect(4)?;
                DemonitorP {
                    from: pid(d)?,
                    to: process(d)?,
                    reference: reference(d)?,
                }
            }
            21 => {
                expect(5)?;
                MonitorPExit {
                    from: process(d)?,
                    to: pid(d)?,
                    reference: reference(d)?,
                    reason: term(d)?,
                }
            }
            22 => {
                expect(3)?;
                SendSender {
                    from: pid(d)?,
                    to: pid(d)?,
                }
            }
            23 => {
                expect(4)?;
                SendSenderTt {
                    from: pid(d)?,
                    to: pid(d)?,
                    token: term(d)?,
                }
            }
            24 => {
                expect(3)?;
                PayloadExit {
                    from: pid(d)?,
                    to: pid(d)?,
                }
            }
            25 => {
                expect(4)?;
                PayloadExitTt {
                    from: pid(d)?,
                    to: pid(d)?,
                    token: term(d)?,
                }
            }
            26 => {
                expect(3)?;
                PayloadExit2 {
                    from: pid(d)?,
                    to: pid(d)?,
                }
            }
            27 => {
                expect(4)?;
                PayloadExit2Tt {
                    from: pid(d)?,
                    to: pid(d)?,
                    token: term(d)?,
                }
            }
            28 => {
                expect(4)?;
                PayloadMonitorPExit {
                    from: process(d)?,
                    to: pid(d)?,
                    reference: reference(d)?,
                }
            }
            29 | 30 => {
                expect(if op == 29 { 6 } else { 7 })?;
                let req_id = reference(d)?;
                let from = pid(d)?;
                let group_leader = pid(d)?;
                let (module, function, arity) = mfa(d)?;
                let options = term(d)?;
                if op == 29 {
                    SpawnRequest {
                        req_id,
                        from,
                        group_leader,
                        module,
                        function,
                        arity,
                        options,
                    }
                } else {
                    SpawnRequestTt {
                        req_id,
                        from,
                        group_leader,
                        module,
                        function,
                        arity,
                        options,
                        token: term(d)?,
                    }
                }
            }
            31 | 32 => {
                expect(if op == 31 { 5 } else { 6 })?;
                let req_id = reference(d)?;
                let to = pid(d)?;
                let flags = u32::try_from(int(d)?)
                    .map_err(|_| shape("spawn reply flags out of range".into()))?;
                let result = term(d)?;
                if op == 31 {
                    SpawnReply {
                        req_id,
                        to,
                        flags,
                        result,
                    }
                } else {
                    SpawnReplyTt {
                        req_id,
                        to,
                        flags,
                        result,
                        token: term(d)?,
                    }
                }
            }
            33 => {
                expect(3)?;
                AliasSend {
                    from: pid(d)?,
                    alias: reference(d)?,
                }
            }
            34 => {
                expect(4)?;
                AliasSendTt {
                    from: pid(d)?,
                    alias: reference(d)?,
                    token: term(d)?,
                }
            }
            35 | 36 => {
                expect(4)?;
                let id = unlink_id(d)?;
                let (from, to) = (pid(d)?, pid(d)?);
                if op == 35 {
                    UnlinkId { id, from, to }
                } else {
                    UnlinkIdAck { id, from, to }
                }
            }
            other => return Err(DecodeError::Shape(format!("unknown control op {other}"))),
        };
        Ok(msg)
    }
}

/// Whether the op is followed by a payload term.
pub(crate) fn op_has_payload(op: u8) -> bool {
    matches!(
        op,
        2 | 6 | 12 | 16 | 22 | 23 | 24 | 25 | 26 | 27 | 28 | 29 | 30 | 33 | 34
    )
}

fn shape(msg: String) -> DecodeError {
    DecodeError::Shape(msg)
}

fn pid(d: &mut Decoder<'_>) -> Result<ErlPid, DecodeError> {
    match WireTerm::read(d, None)? {
        WireTerm::Pid(p) => Ok(p),
        other => Err(shape(format!(
            "expected a pid in a control message, found {other:?}"
        ))),
    }
}

fn reference(d: &mut Decoder<'_>) -> Result<ErlRef, DecodeError> {
    match WireTerm::read(d, None)? {
        WireTerm::Ref(r) => Ok(r),
        other => Err(shape(format!(
            "expected a reference in a control message, found {other:?}"
        ))),
    }
}

fn atom(d: &mut Decoder<'_>) -> Result<Atom, DecodeError> {
    match WireTerm::read(d, None)? {
        WireTerm::Atom(a) => Ok(a),
        other => Err(shape(format!(
            "expected an atom in a control message, found {other:?}"
        ))),
    }
}

fn process(d: &mut Decoder<'_>) -> Result<ProcessRef, DecodeError> {
    match WireTerm::read(d, None)? {
        WireTerm::Pid(p) => Ok(ProcessRef::Pid(p)),
        WireTerm::Atom(a) => Ok(ProcessRef::Name(a)),
        other => Err(shape(format!("expected a pid or a name, found {other:?}"))),
    }
}

fn int(d: &mut Decoder<'_>) -> Result<i64, DecodeError> {
    match d.next_event()? {
        Event::Int(i) => Ok(i),
        other => Err(shape(format!("expected an integer, found {other:?}"))),
    }
}

fn unlink_id(d: &mut Decoder<'_>) -> Result<u64, DecodeError> {
    match d.next_event()? {
        Event::Int(i) if i >= 0 => Ok(i as u64),
        Event::BigInt(b) => b
            .to_u128()
            .and_then(|u| u64::try_from(u).ok())
            .ok_or_else(|| shape("unlink id beyond 64 bits".into())),
        other => Err(shape(format!("expected an unlink id, found {other:?}"))),
    }
}

fn term(d: &mut Decoder<'_>) -> Result<WireTerm, DecodeError> {
    WireTerm::read(d, None)
}

fn mfa(d: &mut Decoder<'_>) -> Result<(Atom, Atom, u32), DecodeError> {
    match d.next_event()? {
        Event::Tuple(3) => {}
        other => return Err(shape(format!("expected {{M, F, A}}, found {other:?}"))),
    }
    let m = atom(d)?;
    let f = atom(d)?;
    let a = u32::try_from(int(d)?).map_err(|_| shape("arity out of range".into()))?;
    Ok((m, f, a))
}

fn write_process(e: &mut Encoder<'_>, p: &ProcessRef) {
    match p {
        ProcessRef::Pid(pid) => {
            e.pid(pid);
        }
        ProcessRef::Name(name) => e.atom_unchecked(name.as_str()),
    }
}

fn write_mfa(e: &mut Encoder<'_>, m: &Atom, f: &Atom, arity: u32) -> Result<(), EncodeError> {
    e.tuple_header(3)?;
    e.atom_unchecked(m.as_str());
    e.atom_unchecked(f.as_str());
    e.int(i64::from(arity));
    Ok(())
}
