//! The explorer: breadth first over every state reachable within a model's bounds, each state
//! kept once (a hashed set), the properties of states checked as states are found. Breadth
//! first, the first violation found is one of the shortest: its trace is the counterexample.
//! Once every state is found, the liveness properties are checked on the graph they make.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

use super::liveness::{Edge, Graph};
use super::model::Model;
use super::properties::{violated_always, violated_at_end, Property};
use super::state::{Gap, State, MAX_CALLS};
use super::steps::Step;

/// What an exploration found.
#[derive(Debug)]
pub struct Exploration {
    /// The model explored.
    pub model: Model,
    /// Distinct states visited.
    pub states: usize,
    /// Transitions followed: a step out of a visited state (to a new state or a known one).
    pub transitions: usize,
    /// Terminal states among them (no step left).
    pub terminal: usize,
    /// Terminal states with a call lost between its effect and its `record` (the runner
    /// crashed): unknown to everyone, so never rolled back.
    pub gap_before_record: usize,
    /// Terminal states with a local-only call (its `record` refused with `Lost`) that the
    /// runner crashed before compensating.
    pub gap_local_only: usize,
    /// The longest of the shortest paths to a state.
    pub depth: usize,
    /// The first violation: of a property of states, breadth first; else of a liveness
    /// property. None when every property holds.
    pub violation: Option<Counterexample>,
}

/// A property's violation, with the shortest trace found that reaches it.
#[derive(Debug)]
pub struct Counterexample {
    /// The property violated.
    pub property: Property,
    /// The steps from the initial state, each with the state it led to.
    pub trace: Vec<(Step, State)>,
    /// For a liveness property: the ordinary steps that lead from the trace's last state back
    /// to it, to be taken forever (none: only a fault could happen there).
    pub cycle: Vec<(Step, State)>,
}

/// Explores every state of `model` reachable from [`State::initial`], stopping at the first
/// violation of a property of states; with none, checks the liveness properties.
pub fn explore(model: &Model) -> Exploration {
    let mut states = vec![State::initial()];
    // Per state, the state it was first reached from and the step that led there.
    let mut parents: Vec<Option<(usize, Step)>> = vec![None];
    let mut depths = vec![0usize];
    // The edges out of each state, in the order states are expanded, which is their id order
    // (breadth first): those of state `s` are `edges[first[s]..first[s + 1]]`.
    let mut first: Vec<u32> = vec![0];
    let mut edges: Vec<Edge> = Vec::new();
    let mut index: HashMap<State, usize, BuildHasherDefault<Fnv>> = HashMap::default();
    index.insert(states[0], 0);
    let mut queue = VecDeque::from([0usize]);
    let mut found = Exploration {
        model: *model,
        states: 0,
        transitions: 0,
        terminal: 0,
        gap_before_record: 0,
        gap_local_only: 0,
        depth: 0,
        violation: None,
    };
    let mut violation = violated_always(&states[0]).map(|property| (property, 0));
    while let (None, Some(at)) = (violation, queue.pop_front()) {
        let state = states[at];
        let steps = model.steps(&state);
        if steps.is_empty() {
            found.terminal += 1;
            let gaps: Vec<Gap> = (0..MAX_CALLS).filter_map(|call| state.gap(call)).collect();
            found.gap_before_record += usize::from(gaps.contains(&Gap::BeforeRecord));
            found.gap_local_only += usize::from(gaps.contains(&Gap::LocalOnlyCrash));
            violation = violated_at_end(&state).map(|property| (property, at));
        }
        for step in steps {
            let next = model.apply(&state, step);
            let fresh = states.len();
            let id = *index.entry(next).or_insert(fresh);
            edges.push(Edge {
                to: id as u32,
                step,
            });
            if id != fresh {
                continue;
            }
            states.push(next);
            parents.push(Some((at, step)));
            depths.push(depths[at] + 1);
            queue.push_back(id);
            if let Some(property) = violated_always(&next) {
                violation = Some((property, id));
                break;
            }
        }
        first.push(edges.len() as u32);
    }
    found.states = states.len();
    found.transitions = edges.len();
    found.depth = depths.iter().copied().max().unwrap_or(0);
    let trace_to = |mut at: usize| {
        let mut trace = Vec::new();
        while let Some((parent, step)) = parents[at] {
            trace.push((step, states[at]));
            at = parent;
        }
        trace.reverse();
        trace
    };
    found.violation = match violation {
        Some((property, at)) => Some(Counterexample {
            property,
            trace: trace_to(at),
            cycle: Vec::new(),
        }),
        None => {
            let graph = Graph {
                states: &states,
                first: &first,
                edges: &edges,
            };
            graph.violated().map(|lasso| {
                let mut state = states[lasso.at];
                let cycle = lasso
                    .cycle
                    .into_iter()
                    .map(|step| {
                        state = model.apply(&state, step);
                        (step, state)
                    })
                    .collect();
                Counterexample {
                    property: lasso.property,
                    trace: trace_to(lasso.at),
                    cycle,
                }
            })
        }
    };
    found
}

impl fmt::Display for Exploration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "protocol model: {}: {} states, {} transitions, {} terminal ({} with a call lost \
             between effect and record by a crash, {} with a local-only call lost by a crash), \
             depth {}: ",
            self.model,
            self.states,
            self.transitions,
            self.terminal,
            self.gap_before_record,
            self.gap_local_only,
            self.depth
        )?;
        match &self.violation {
            None => write!(f, "all properties hold"),
            Some(counterexample) => write!(f, "{counterexample}"),
        }
    }
}

impl fmt::Display for Counterexample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "`{}` violated after {} steps:",
            self.property,
            self.trace.len()
        )?;
        for (number, (step, state)) in self.trace.iter().enumerate() {
            writeln!(f, "  {:>2}. {step}  => {}", number + 1, state.summary())?;
        }
        match (self.property, self.cycle.is_empty()) {
            (Property::Terminates, true) => writeln!(
                f,
                "  and there nothing but a fault can happen: the run is stuck"
            )?,
            (Property::Terminates | Property::PassesEnd, false) => writeln!(
                f,
                "  then, round and round, back to the state of step {}{}:",
                self.trace.len(),
                if self.property == Property::Terminates {
                    " with no fault"
                } else {
                    ""
                }
            )?,
            _ => {}
        }
        let start = self.trace.len();
        for (number, (step, state)) in self.cycle.iter().enumerate() {
            writeln!(
                f,
                "  {:>2}. {step}  => {}",
                start + number + 1,
                state.summary()
            )?;
        }
        Ok(())
    }
}

/// FNV-1a: the states are small and many; the explorer needs a fast hash, not a keyed one.
#[derive(Debug)]
pub(crate) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}
