//! Supervisor reports: what a supervisor does to its children, as `tracing` events (OTP's
//! progress and supervisor reports).
//!
//! Every event has target `mote::supervisor`, an `event` field saying what happened, the
//! supervisor's pid (`supervisor`) and registered name (`supervisor_name`, if any), the
//! child's id (`child_id`) and process (`child_pid`):
//!
//! | `event`            | level | when                                                        |
//! |--------------------|-------|-------------------------------------------------------------|
//! | `child_started`    | INFO  | a child was started (OTP's progress report)                 |
//! | `child_restarted`  | ERROR | a child was restarted; `reason` is the exit that caused it, `old_pid` the process before, `cause` the id of the child whose exit it was (another one under one-for-all and rest-for-one) |
//! | `child_terminated` | INFO  | the supervisor stopped a child (API, strategy or shutdown)  |
//! | `child_exited`     | INFO or ERROR | a child ended and is not restarted (temporary, or transient and normal); ERROR when `reason` is abnormal |
//! | `shutdown`         | ERROR | the restart intensity was reached: the supervisor gives up (OTP's `reached_max_restart_intensity`); `reason` is the last exit |
//!
//! Field values are only computed when a subscriber wants the event.

use crate::otp::server::Context;
use crate::values::exit::ExitReason;
use crate::values::pid::ProcessId;

use super::state::SupState;

/// The supervisor's registered name, if any, for a report.
fn name_of(ctx: &Context<SupState>) -> Option<String> {
    crate::process::registry::registered_name(ctx.id()).map(|n| n.as_str().to_string())
}

pub(super) fn started(ctx: &Context<SupState>, child_id: &str, child_pid: Option<ProcessId>) {
    tracing::info!(
        target: "mote::supervisor",
        event = "child_started",
        supervisor = %ctx.id(),
        supervisor_name = name_of(ctx).as_deref(),
        child_id,
        child_pid = %child_pid.unwrap_or(ProcessId::NONE),
        "supervisor {} started child {child_id}", ctx.id(),
    );
}

pub(super) struct Restarted<'a> {
    pub(super) child_id: &'a str,
    pub(super) child_pid: Option<ProcessId>,
    pub(super) old_pid: Option<ProcessId>,
    pub(super) cause: &'a str,
    pub(super) reason: &'a ExitReason,
}

pub(super) fn restarted(ctx: &Context<SupState>, r: Restarted<'_>) {
    tracing::error!(
        target: "mote::supervisor",
        event = "child_restarted",
        supervisor = %ctx.id(),
        supervisor_name = name_of(ctx).as_deref(),
        child_id = r.child_id,
        child_pid = %r.child_pid.unwrap_or(ProcessId::NONE),
        old_pid = %r.old_pid.unwrap_or(ProcessId::NONE),
        cause = r.cause,
        reason = %r.reason,
        "supervisor {} restarted child {} after {} exited: {}", ctx.id(), r.child_id, r.cause, r.reason,
    );
}

pub(super) fn terminated(ctx: &Context<SupState>, child_id: &str, child_pid: ProcessId) {
    tracing::info!(
        target: "mote::supervisor",
        event = "child_terminated",
        supervisor = %ctx.id(),
        supervisor_name = name_of(ctx).as_deref(),
        child_id,
        child_pid = %child_pid,
        "supervisor {} terminated child {child_id} ({child_pid})", ctx.id(),
    );
}

pub(super) fn exited(
    ctx: &Context<SupState>,
    child_id: &str,
    child_pid: ProcessId,
    reason: &ExitReason,
) {
    macro_rules! exited {
        ($level:ident) => {
            tracing::$level!(
                target: "mote::supervisor",
                event = "child_exited",
                supervisor = %ctx.id(),
                supervisor_name = name_of(ctx).as_deref(),
                child_id,
                child_pid = %child_pid,
                reason = %reason,
                "child {child_id} ({child_pid}) of supervisor {} exited: {reason}", ctx.id(),
            )
        };
    }
    if reason.is_abnormal() && !reason.is_shutdown() {
        exited!(error);
    } else {
        exited!(info);
    }
}

pub(super) fn gave_up(
    ctx: &Context<SupState>,
    child_id: &str,
    child_pid: Option<ProcessId>,
    reason: &ExitReason,
) {
    tracing::error!(
        target: "mote::supervisor",
        event = "shutdown",
        supervisor = %ctx.id(),
        supervisor_name = name_of(ctx).as_deref(),
        child_id,
        child_pid = %child_pid.unwrap_or(ProcessId::NONE),
        reason = %reason,
        "supervisor {} reached its restart intensity after child {child_id} exited ({reason}): shutting down", ctx.id(),
    );
}
