//! Distribution capability flags (`DFLAG_*`).

use bitflags::bitflags;

bitflags! {
    /// The capability flags two nodes exchange in the handshake; a connection uses the
    /// bits both sides set.
    ///
    /// Values are those of OTP's `dist.h`. [`DistFlags::IMPLEMENTED`] is what this
    /// crate's wire layer handles, and the default to advertise; [`DistFlags::MANDATORY`]
    /// is what an OTP 26+ node requires, which this crate requires of its peers too.
    ///
    /// ```
    /// use mote_dist::handshake::DistFlags;
    ///
    /// let otp25 = DistFlags::from_bits_retain(0xd07df7fbd); // what erl 25.2 advertises
    /// assert!(otp25.contains(DistFlags::MANDATORY));
    /// assert!(DistFlags::IMPLEMENTED.contains(DistFlags::MANDATORY));
    /// assert!(!DistFlags::IMPLEMENTED.contains(DistFlags::DIST_HDR_ATOM_CACHE));
    /// ```
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct DistFlags: u64 {
        /// The node is visible in `nodes()`; unset for a hidden node.
        const PUBLISHED = 0x1;
        /// Atom cache (obsolete).
        const ATOM_CACHE = 0x2;
        /// Extended references (mandatory).
        const EXTENDED_REFERENCES = 0x4;
        /// Distributed monitors.
        const DIST_MONITOR = 0x8;
        /// Fun tags (mandatory).
        const FUN_TAGS = 0x10;
        /// Monitors by registered name.
        const DIST_MONITOR_NAME = 0x20;
        /// Hidden atom cache (obsolete).
        const HIDDEN_ATOM_CACHE = 0x40;
        /// NEW_FUN_EXT (mandatory).
        const NEW_FUN_TAGS = 0x80;
        /// Extended pids and ports (mandatory).
        const EXTENDED_PIDS_PORTS = 0x100;
        /// EXPORT_EXT (mandatory).
        const EXPORT_PTR_TAG = 0x200;
        /// Bitstrings (mandatory).
        const BIT_BINARIES = 0x400;
        /// NEW_FLOAT_EXT (mandatory).
        const NEW_FLOATS = 0x800;
        /// Unicode-aware I/O.
        const UNICODE_IO = 0x1000;
        /// The distribution header with an atom cache.
        const DIST_HDR_ATOM_CACHE = 0x2000;
        /// SMALL_ATOM_EXT.
        const SMALL_ATOM_TAGS = 0x4000;
        /// UTF-8 atoms (mandatory).
        const UTF8_ATOMS = 0x10000;
        /// Maps (mandatory).
        const MAP_TAG = 0x20000;
        /// 32-bit creations (mandatory).
        const BIG_CREATION = 0x40000;
        /// SEND_SENDER instead of SEND.
        const SEND_SENDER = 0x80000;
        /// Large sequential-trace labels.
        const BIG_SEQTRACE_LABELS = 0x100000;
        /// PAYLOAD_EXIT* control messages, the reason after the control term.
        const EXIT_PAYLOAD = 0x400000;
        /// Fragmented messages.
        const FRAGMENTS = 0x800000;
        /// The OTP 23 handshake (mandatory from OTP 25).
        const HANDSHAKE_23 = 0x1000000;
        /// The new link protocol, UNLINK_ID (mandatory from OTP 26).
        const UNLINK_ID = 0x2000000;
        /// Shorthand for every flag mandatory in OTP 25 (the OTP documentation gives
        /// `1 bsl 36`, but OTP's `dist.h` and `dist.hrl`, and what an OTP 25 node sends,
        /// use this bit).
        const MANDATORY_25_DIGEST = 0x4000000;
        /// SPAWN_REQUEST / SPAWN_REPLY.
        const SPAWN = 1 << 32;
        /// The acceptor names the initiator.
        const NAME_ME = 1 << 33;
        /// 64-bit pids and ports, 5-word references (mandatory from OTP 26).
        const V4_NC = 1 << 34;
        /// ALIAS_SEND (deprecated in OTP 28).
        const ALIAS = 1 << 35;
        /// ALTACT_SIG_SEND (OTP 28).
        const ALTACT_SIG = 1 << 37;

        /// Every flag mandatory in OTP 25.
        const MANDATORY_25 = Self::EXTENDED_REFERENCES.bits()
            | Self::FUN_TAGS.bits()
            | Self::EXTENDED_PIDS_PORTS.bits()
            | Self::NEW_FUN_TAGS.bits()
            | Self::EXPORT_PTR_TAG.bits()
            | Self::BIT_BINARIES.bits()
            | Self::NEW_FLOATS.bits()
            | Self::UTF8_ATOMS.bits()
            | Self::MAP_TAG.bits()
            | Self::BIG_CREATION.bits()
            | Self::HANDSHAKE_23.bits();

        /// Every flag mandatory in OTP 26 and later: refused connections without them.
        const MANDATORY = Self::MANDATORY_25.bits() | Self::UNLINK_ID.bits() | Self::V4_NC.bits();

        /// What this crate's wire layer implements: the mandatory set, the digest,
        /// monitors (also by name), small atom tags, SEND_SENDER, EXIT_PAYLOAD, SPAWN and
        /// ALIAS. Not: the atom cache and fragments (either makes OTP require a
        /// distribution header on every message), NAME_ME, ALTACT_SIG. Add PUBLISHED for a
        /// published node.
        const IMPLEMENTED = Self::MANDATORY.bits()
            | Self::MANDATORY_25_DIGEST.bits()
            | Self::DIST_MONITOR.bits()
            | Self::DIST_MONITOR_NAME.bits()
            | Self::SMALL_ATOM_TAGS.bits()
            | Self::SEND_SENDER.bits()
            | Self::EXIT_PAYLOAD.bits()
            | Self::SPAWN.bits()
            | Self::ALIAS.bits();
    }
}

impl DistFlags {
    /// The flags a peer advertised, with the OTP 25 digest expanded to the flags it
    /// stands for.
    pub(crate) fn expand_digest(self) -> Self {
        if self.contains(DistFlags::MANDATORY_25_DIGEST) {
            self | DistFlags::MANDATORY_25
        } else {
            self
        }
    }

    /// Mandatory flags the peer lacks.
    pub(crate) fn missing_mandatory(self) -> DistFlags {
        DistFlags::MANDATORY.difference(self.expand_digest())
    }
}
