//! The supervisor process: a [`Server`] whose state is its children.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::intensity::RestartIntensity;
use super::report;
use super::spec::{ChildKind, ChildSpec, Restart, Shutdown};
use super::{ChildCounts, ChildInfo, Strategy, SupervisorError};
use crate::otp::server::{Context, Next, ReplyTo, Server};
use crate::otp::shutdown::shut_down;
use crate::rt::completion::ProcessEnd;
use crate::values::exit::{Exit, ExitReason};
use crate::values::pid::ProcessId;
use crate::values::term::Term;

pub(crate) struct SupState {
    pub(super) strategy: Strategy,
    pub(super) intensity: RestartIntensity,
    /// In start order.
    pub(super) children: Vec<Child>,
    /// `Some` for a dynamic supervisor: children are identified by pid, removed when they
    /// end for good, and at most this many (if set).
    pub(super) dynamic: Option<Option<usize>>,
}

pub(super) struct Child {
    pub(super) spec: ChildSpec,
    pub(super) pid: Option<ProcessId>,
}

pub(crate) enum SupCall {
    Which,
    Count,
    Terminate(Arc<str>),
    TerminatePid(ProcessId),
    Restart(Arc<str>),
    Delete(Arc<str>),
    Start(ChildSpec),
}

pub(crate) enum SupReply {
    Children(Vec<ChildInfo>),
    Counts(ChildCounts),
    Done(Result<Option<ProcessId>, SupervisorError>),
}

impl SupState {
    fn find(&self, id: &str) -> Result<usize, SupervisorError> {
        self.children
            .iter()
            .position(|c| &*c.spec.id == id)
            .ok_or_else(|| SupervisorError::NotFound(id.into()))
    }

    /// Starts the child at `i`, recording its pid (`None`: its start answered ignore).
    async fn start_child(
        &mut self,
        i: usize,
        ctx: &mut Context<Self>,
    ) -> Result<Option<ProcessId>, ExitReason> {
        let pid = (self.children[i].spec.start)().await?;
        if let Some(pid) = pid {
            // Mend a start function that forgot the link (a no-op for a linked child; a
            // child already gone arrives as an `Exit` with `noproc`).
            let _ = ctx.link(pid);
        }
        self.children[i].pid = pid;
        report::started(ctx, &self.children[i].spec.id, pid);
        Ok(pid)
    }

    /// Stops the child at `i` if it runs, as its spec says; it stays in the list.
    async fn stop_child(&mut self, i: usize, ctx: &mut Context<Self>) {
        if let Some(pid) = self.children[i].pid.take() {
            stop_process(pid, self.children[i].spec.shutdown, ctx).await;
            report::terminated(ctx, &self.children[i].spec.id, pid);
        }
    }

    /// Stops every child, last started first.
    async fn stop_all(&mut self, ctx: &mut Context<Self>) {
        for i in (0..self.children.len()).rev() {
            self.stop_child(i, ctx).await;
        }
    }

    /// A child (`from`) ended with `reason`: restart what the strategy says, within the
    /// intensity.
    async fn child_exited(
        &mut self,
        i: usize,
        from: ProcessId,
        reason: ExitReason,
        ctx: &mut Context<Self>,
    ) -> Next {
        self.children[i].pid = None;
        let cause = Arc::clone(&self.children[i].spec.id);
        let restart = match self.children[i].spec.restart {
            Restart::Permanent => true,
            Restart::Transient => reason.is_abnormal() && !reason.is_shutdown(),
            Restart::Temporary => false,
        };
        if !restart {
            report::exited(ctx, &cause, from, &reason);
            if self.dynamic.is_some() || self.children[i].spec.restart == Restart::Temporary {
                self.children.remove(i);
            }
            return Next::Continue;
        }
        if !self.intensity.record(Instant::now()) {
            // One restart too many: give up; `terminate` stops the others.
            report::gave_up(ctx, &cause, Some(from), &reason);
            return Next::Stop(ExitReason::Shutdown);
        }
        let strategy = if self.dynamic.is_some() {
            Strategy::OneForOne
        } else {
            self.strategy
        };
        let set = strategy.restart_set(i, self.children.len());
        // The processes before the restart, for the reports.
        let mut old: Vec<Option<ProcessId>> = set
            .clone()
            .map(|j| {
                if j == i {
                    Some(from)
                } else {
                    self.children[j].pid
                }
            })
            .collect();
        for j in set.clone().rev() {
            self.stop_child(j, ctx).await;
        }
        // Temporary siblings stopped by the strategy are not restarted: they go. (By
        // position, not by id: a dynamic supervisor's children may share an id.) What is
        // left of the set stays contiguous from its start.
        let mut kept = set.len();
        for j in set.clone().rev() {
            if j != i && self.children[j].spec.restart == Restart::Temporary {
                self.children.remove(j);
                old.remove(j - set.start);
                kept -= 1;
            }
        }
        for j in set.start..set.start + kept {
            // A failed restart counts as a restart and is tried again (Erlang's
            // `try_again_restart`), until it works or the intensity is exceeded.
            let pid = loop {
                match self.start_child(j, ctx).await {
                    Ok(pid) => break pid,
                    Err(failed) => {
                        if !self.intensity.record(Instant::now()) {
                            let id = Arc::clone(&self.children[j].spec.id);
                            report::gave_up(ctx, &id, None, &failed);
                            return Next::Stop(ExitReason::Shutdown);
                        }
                    }
                }
            };
            report::restarted(
                ctx,
                report::Restarted {
                    child_id: &self.children[j].spec.id,
                    child_pid: pid,
                    old_pid: old[j - set.start],
                    cause: &cause,
                    reason: &reason,
                },
            );
        }
        Next::Continue
    }

    fn infos(&self) -> Vec<ChildInfo> {
        self.children
            .iter()
            .map(|c| ChildInfo {
                id: Arc::clone(&c.spec.id),
                pid: c.pid,
                kind: c.spec.kind,
                restart: c.spec.restart,
            })
            .collect()
    }

    fn counts(&self) -> ChildCounts {
        let mut n = ChildCounts {
            specs: self.children.len(),
            ..ChildCounts::default()
        };
        for c in &self.children {
            n.active += usize::from(c.pid.is_some());
            match c.spec.kind {
                ChildKind::Worker => n.workers += 1,
                ChildKind::Supervisor => n.supervisors += 1,
            }
        }
        n
    }

    async fn call(&mut self, call: SupCall, ctx: &mut Context<Self>) -> SupReply {
        let done = |r: Result<Option<ProcessId>, SupervisorError>| SupReply::Done(r);
        match call {
            SupCall::Which => SupReply::Children(self.infos()),
            SupCall::Count => SupReply::Counts(self.counts()),
            SupCall::Terminate(id) => match self.find(&id) {
                Ok(i) => {
                    self.stop_child(i, ctx).await;
                    if self.children[i].spec.restart == Restart::Temporary {
                        self.children.remove(i);
                    }
                    done(Ok(None))
                }
                Err(e) => done(Err(e)),
            },
            SupCall::TerminatePid(pid) => {
                match self.children.iter().position(|c| c.pid == Some(pid)) {
                    Some(i) => {
                        self.stop_child(i, ctx).await;
                        self.children.remove(i);
                        done(Ok(None))
                    }
                    None => done(Err(SupervisorError::NotFound(pid.to_string().into()))),
                }
            }
            SupCall::Restart(id) => match self.find(&id) {
                Ok(i) if self.children[i].pid.is_some() => done(Err(SupervisorError::Running(id))),
                Ok(i) => done(
                    self.start_child(i, ctx)
                        .await
                        .map_err(SupervisorError::StartFailed),
                ),
                Err(e) => done(Err(e)),
            },
            SupCall::Delete(id) => match self.find(&id) {
                Ok(i) if self.children[i].pid.is_some() => done(Err(SupervisorError::Running(id))),
                Ok(i) => {
                    self.children.remove(i);
                    done(Ok(None))
                }
                Err(e) => done(Err(e)),
            },
            SupCall::Start(spec) => {
                if let Some(Some(max)) = self.dynamic {
                    if self.children.len() >= max {
                        return done(Err(SupervisorError::MaxChildren(max)));
                    }
                } else if let (None, Ok(i)) = (self.dynamic, self.find(&spec.id)) {
                    // Erlang's `{error, {already_started, Pid}}` for a running child,
                    // `{error, already_present}` for one that is not.
                    return done(Err(match self.children[i].pid {
                        Some(pid) => SupervisorError::AlreadyStarted(pid),
                        None => SupervisorError::AlreadyPresent(spec.id),
                    }));
                }
                self.children.push(Child { spec, pid: None });
                let i = self.children.len() - 1;
                match self.start_child(i, ctx).await {
                    Ok(None)
                        if self.dynamic.is_some()
                            || self.children[i].spec.restart == Restart::Temporary =>
                    {
                        // Neither `simple_one_for_one` nor a temporary spec keeps an
                        // ignored child (OTP 25).
                        self.children.pop();
                        done(Ok(None))
                    }
                    Ok(pid) => done(Ok(pid)),
                    Err(reason) => {
                        self.children.pop();
                        done(Err(SupervisorError::StartFailed(reason)))
                    }
                }
            }
        }
    }
}

impl Server for SupState {
    type Call = SupCall;
    type Reply = SupReply;
    type Cast = ();
    type Info = ();

    async fn init(&mut self, ctx: &mut Context<Self>) -> Result<(), ExitReason> {
        ctx.trap_exit(true);
        let mut i = 0;
        while i < self.children.len() {
            match self.start_child(i, ctx).await {
                // An ignored temporary child is not kept; any other ignored one is, with
                // no process (OTP 25).
                Ok(None) if self.children[i].spec.restart == Restart::Temporary => {
                    self.children.remove(i);
                    continue;
                }
                Ok(_) => {}
                Err(reason) => {
                    let id = Term::atom_or_binary(Arc::clone(&self.children[i].spec.id));
                    self.stop_all(ctx).await;
                    // Erlang's reason: `{shutdown, {failed_to_start_child, Id, Reason}}`.
                    let failed =
                        Term::tuple([Term::atom("failed_to_start_child"), id, reason.into()]);
                    return Err(ExitReason::shutdown_with(failed));
                }
            }
            i += 1;
        }
        Ok(())
    }

    async fn handle_call(
        &mut self,
        call: SupCall,
        from: ReplyTo<SupReply>,
        ctx: &mut Context<Self>,
    ) -> Next {
        let reply = self.call(call, ctx).await;
        from.reply(reply);
        Next::Continue
    }

    /// A child's exit (the parent's is handled by the server loop: the supervisor stops
    /// with its reason).
    async fn handle_exit(&mut self, exit: Exit, ctx: &mut Context<Self>) -> Next {
        match self.children.iter().position(|c| c.pid == Some(exit.from)) {
            Some(i) => self.child_exited(i, exit.from, exit.reason, ctx).await,
            // A child already stopped or replaced, or a stranger: nothing to do.
            None => Next::Continue,
        }
    }

    async fn terminate(&mut self, _reason: &ExitReason, ctx: &mut Context<Self>) {
        self.stop_all(ctx).await;
    }
}

/// Stops `pid` as `shutdown` says and waits until it has ended.
async fn stop_process(pid: ProcessId, shutdown: Shutdown, ctx: &mut Context<SupState>) {
    // Unlinked first, so its end is not also taken for a failure to handle.
    ctx.process().unlink(pid);
    let mut ended = ProcessEnd::watch(pid);
    let _ = match shutdown {
        Shutdown::BrutalKill => {
            crate::exit(pid, ExitReason::Kill);
            ended.await
        }
        Shutdown::Timeout(grace) => shut_down(pid, Some(grace), &mut ended).await,
        Shutdown::Infinity => shut_down(pid, None, &mut ended).await,
    };
}

/// The call timeout of the supervisor API: a supervisor answers once it has done what was
/// asked, which may include stopping a child slowly.
pub(super) const FOREVER: Duration = Duration::MAX;
