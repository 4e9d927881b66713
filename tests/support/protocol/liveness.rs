//! The liveness properties, checked on the graph of reachable states once the exploration
//! completed: a run that never ends, or a recovery pass that never ends, shows as a cycle
//! (or, for a run, as a state that only a fault could leave). A violation comes back as a
//! lasso: the shortest trace found to a state on the cycle, then the cycle.
//!
//! Cycles are found as strongly connected components (Tarjan's algorithm, iterative) of a
//! subgraph: for [`Property::Terminates`], the ordinary steps (no crash, no stall), so that a
//! cycle is a way to go on forever once the faults stopped; for [`Property::PassesEnd`], every
//! step between states where one recoverer is inside a pass, faults included, so that a cycle
//! is a pass that never ends however the faults fall. The model is finite, so with no cycle
//! every path of the subgraph reaches a state with no way on in it. Only fair cycles count
//! (`Graph::cycle` says which).

use std::collections::VecDeque;

use super::properties::{settled, Property};
use super::state::{Proc, RecovererAt, State};
use super::steps::{Actor, Step};

/// A step between two explored states.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Edge {
    /// The state it leads to.
    pub(crate) to: u32,
    /// The step.
    pub(crate) step: Step,
}

/// The explored graph: states by id, and the edges out of each (those of state `s` are
/// `edges[first[s]..first[s + 1]]`).
pub(crate) struct Graph<'a> {
    pub(crate) states: &'a [State],
    pub(crate) first: &'a [u32],
    pub(crate) edges: &'a [Edge],
}

/// A liveness violation: the property, the state the cycle starts from, and the cycle's steps
/// (none when the run is stuck there).
pub(crate) struct Lasso {
    pub(crate) property: Property,
    pub(crate) at: usize,
    pub(crate) cycle: Vec<Step>,
}

impl Graph<'_> {
    fn out(&self, state: usize) -> &[Edge] {
        &self.edges[self.first[state] as usize..self.first[state + 1] as usize]
    }

    /// The first liveness property violated, if any.
    pub(crate) fn violated(&self) -> Option<Lasso> {
        self.stuck()
            .or_else(|| self.ordinary_cycle())
            .or_else(|| self.endless_pass())
    }

    /// A run not at its end where only a fault can happen next.
    fn stuck(&self) -> Option<Lasso> {
        (0..self.states.len())
            .find(|&at| {
                !settled(&self.states[at]) && self.out(at).iter().all(|edge| edge.step.is_fault())
            })
            .map(|at| Lasso {
                property: Property::Terminates,
                at,
                cycle: Vec::new(),
            })
    }

    /// A cycle of ordinary steps: once the faults stopped, the run may go round it forever.
    /// One with no timeout is looked for first: it shows that slowness alone, short of any
    /// timeout, is enough.
    fn ordinary_cycle(&self) -> Option<Lasso> {
        let ordinary = |edge: &Edge| !edge.step.is_fault();
        let in_time =
            |edge: &Edge| ordinary(edge) && !matches!(edge.step, Step::CompensationTimesOut { .. });
        let (at, cycle) = self
            .cycle(|_| true, in_time, |_| true)
            .or_else(|| self.cycle(|_| true, ordinary, |_| true))?;
        Some(Lasso {
            property: Property::Terminates,
            at,
            cycle,
        })
    }

    /// A cycle, faults included, inside one pass of a recoverer, on which it claims the run.
    fn endless_pass(&self) -> Option<Lasso> {
        Proc::RECOVERERS.into_iter().find_map(|by| {
            let in_pass = |state: &State| {
                !matches!(
                    state.recoverer(by).at,
                    RecovererAt::Dormant | RecovererAt::Idle | RecovererAt::Crashed
                )
            };
            let claims = |edge: &Edge| edge.step == Step::Claim(by);
            let (at, cycle) = self.cycle(in_pass, |_| true, claims)?;
            Some(Lasso {
                property: Property::PassesEnd,
                at,
                cycle,
            })
        })
    }

    /// A fair cycle of the subgraph of states `keep` and edges `follow` that takes an edge
    /// `wanted`: the state it starts from (a low id, for a short trace to it) and its steps.
    ///
    /// Fair: every actor ([`Step::actor`]) that could go on (by an ordinary step) at every
    /// state of the cycle takes a step in it. A cycle that only an actor standing still keeps
    /// going is not a way things can go on forever: A, in the middle of a compensation, does
    /// return from it. Within a strongly connected component, a fair cycle exists exactly when
    /// every actor either cannot go on at one of its states or steps inside it; one is then
    /// built through a witness of each.
    fn cycle(
        &self,
        keep: impl Fn(&State) -> bool,
        follow: impl Fn(&Edge) -> bool,
        wanted: impl Fn(&Edge) -> bool,
    ) -> Option<(usize, Vec<Step>)> {
        let kept: Vec<bool> = self.states.iter().map(keep).collect();
        let inside = |edge: &Edge| kept[edge.to as usize] && follow(edge);
        let component = self.components(&kept, &inside);
        let internal = |from: usize, edge: &Edge| {
            inside(edge) && component[edge.to as usize] == component[from]
        };
        // The members of each component, listed together: those of `c` are
        // `members[start[c]..start[c + 1]]`.
        let count = component.iter().filter(|&&c| c != u32::MAX).count();
        let components = component
            .iter()
            .filter(|&&c| c != u32::MAX)
            .max()
            .map_or(0, |&c| c as usize + 1);
        let mut start = vec![0u32; components + 1];
        for &c in component.iter().filter(|&&c| c != u32::MAX) {
            start[c as usize + 1] += 1;
        }
        for c in 0..components {
            start[c + 1] += start[c];
        }
        let mut members = vec![0u32; count];
        let mut fill = start.clone();
        for (at, &c) in component.iter().enumerate().filter(|(_, &c)| c != u32::MAX) {
            members[fill[c as usize] as usize] = at as u32;
            fill[c as usize] += 1;
        }
        let mut examined = vec![false; components];
        for from in (0..self.states.len()).filter(|&at| kept[at]) {
            let c = component[from] as usize;
            if examined[c] {
                continue;
            }
            let Some(first) = self
                .out(from)
                .iter()
                .find(|edge| internal(from, edge) && wanted(edge))
            else {
                continue;
            };
            examined[c] = true;
            // The shortest way round by the wanted edge, when it is fair; else round the
            // witnesses, by the wanted edge first.
            let mut steps = vec![(first.step, first.to as usize)];
            steps.extend(self.path(first.to as usize, from, &component, &inside));
            if !self.fair(from, &steps) {
                let members = &members[start[c] as usize..start[c + 1] as usize];
                let Some(witnesses) = self.witnesses(from, members, &internal) else {
                    continue;
                };
                steps.truncate(1);
                let mut at = first.to as usize;
                for (to, edge) in witnesses {
                    steps.extend(self.path(at, to, &component, &inside));
                    at = to;
                    if let Some(edge) = edge {
                        steps.push((edge.step, edge.to as usize));
                        at = edge.to as usize;
                    }
                }
                steps.extend(self.path(at, from, &component, &inside));
            }
            return Some((from, steps.into_iter().map(|(step, _)| step).collect()));
        }
        None
    }

    /// Whether the cycle of `steps` from `from` (each with the state it leads to) is fair.
    fn fair(&self, from: usize, steps: &[(Step, usize)]) -> bool {
        let mut always = self.able(from);
        for &(_, at) in steps {
            let able = self.able(at);
            always.retain(|actor| able.contains(actor));
        }
        always
            .iter()
            .all(|&actor| steps.iter().any(|(step, _)| step.actor() == Some(actor)))
    }

    /// For a fair cycle through `from` in the component of `members`: per actor that can go
    /// on at `from`, a state to pass and the step it takes there, or a state where the actor
    /// cannot go on (no step). None when the component has no fair cycle.
    fn witnesses(
        &self,
        from: usize,
        members: &[u32],
        internal: &impl Fn(usize, &Edge) -> bool,
    ) -> Option<Vec<(usize, Option<Edge>)>> {
        let mut witnesses = Vec::new();
        for actor in self.able(from) {
            let steps = members.iter().find_map(|&at| {
                let at = at as usize;
                self.out(at)
                    .iter()
                    .find(|edge| internal(at, edge) && edge.step.actor() == Some(actor))
                    .map(|edge| (at, Some(*edge)))
            });
            let stuck = || {
                members
                    .iter()
                    .map(|&at| at as usize)
                    .find(|&at| !self.able(at).contains(&actor))
                    .map(|at| (at, None))
            };
            witnesses.push(steps.or_else(stuck)?);
        }
        Some(witnesses)
    }

    /// The actors that can go on at `state` by an ordinary step.
    fn able(&self, state: usize) -> Vec<Actor> {
        let mut actors: Vec<Actor> = self
            .out(state)
            .iter()
            .filter_map(|edge| edge.step.actor())
            .collect();
        actors.sort_unstable();
        actors.dedup();
        actors
    }

    /// The steps of a shortest path from `from` to `to` inside their component, each with the
    /// state it leads to.
    fn path(
        &self,
        from: usize,
        to: usize,
        component: &[u32],
        inside: &impl Fn(&Edge) -> bool,
    ) -> Vec<(Step, usize)> {
        let mut reached: Vec<Option<(usize, Step)>> = vec![None; self.states.len()];
        let mut queue = VecDeque::from([from]);
        while let Some(at) = queue.pop_front() {
            if at == to {
                break;
            }
            for edge in self.out(at) {
                let next = edge.to as usize;
                if inside(edge)
                    && component[next] == component[from]
                    && next != from
                    && reached[next].is_none()
                {
                    reached[next] = Some((at, edge.step));
                    queue.push_back(next);
                }
            }
        }
        let mut steps = Vec::new();
        let mut at = to;
        while at != from {
            let (before, step) = reached[at].expect("a component is strongly connected");
            steps.push((step, at));
            at = before;
        }
        steps.reverse();
        steps
    }

    /// Tarjan's strongly connected components of the kept states and inside edges: a component
    /// number per state (`u32::MAX` for a state left out).
    fn components(&self, kept: &[bool], inside: &impl Fn(&Edge) -> bool) -> Vec<u32> {
        const NONE: u32 = u32::MAX;
        let count = self.states.len();
        let mut index = vec![NONE; count];
        let mut low = vec![0u32; count];
        let mut on_stack = vec![false; count];
        let mut component = vec![NONE; count];
        let mut stack: Vec<u32> = Vec::new();
        // The depth-first search's own stack: a state and the next of its edges to follow.
        let mut calls: Vec<(u32, u32)> = Vec::new();
        let (mut next_index, mut next_component) = (0u32, 0u32);
        for root in (0..count).filter(|&at| kept[at]) {
            if index[root] != NONE {
                continue;
            }
            calls.push((root as u32, self.first[root]));
            index[root] = next_index;
            low[root] = next_index;
            next_index += 1;
            stack.push(root as u32);
            on_stack[root] = true;
            while let Some(&(at, cursor)) = calls.last() {
                let at = at as usize;
                if cursor < self.first[at + 1] {
                    let edge = &self.edges[cursor as usize];
                    if let Some(call) = calls.last_mut() {
                        call.1 += 1;
                    }
                    if !inside(edge) {
                        continue;
                    }
                    let to = edge.to as usize;
                    if index[to] == NONE {
                        index[to] = next_index;
                        low[to] = next_index;
                        next_index += 1;
                        stack.push(to as u32);
                        on_stack[to] = true;
                        calls.push((to as u32, self.first[to]));
                    } else if on_stack[to] {
                        low[at] = low[at].min(index[to]);
                    }
                    continue;
                }
                calls.pop();
                if let Some(&(parent, _)) = calls.last() {
                    let parent = parent as usize;
                    low[parent] = low[parent].min(low[at]);
                }
                if low[at] == index[at] {
                    while let Some(member) = stack.pop() {
                        on_stack[member as usize] = false;
                        component[member as usize] = next_component;
                        if member as usize == at {
                            break;
                        }
                    }
                    next_component += 1;
                }
            }
        }
        component
    }
}
