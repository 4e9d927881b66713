//! The run store's record-and-lease protocol, checked by exhaustive exploration rather than by
//! the cases we thought of (`tool_sdk_tests::protocol`): every interleaving, within the bounds,
//! of the runner, two recovering processes (at once, or one restarted after the other crashed),
//! two resumes holding the same decisions for a paused run (racing, or one retried after the
//! other returned), crashes, stalls, leases running out, and compensation timeouts. Every
//! state is checked for the safety properties; the graph of reachable states, for two liveness
//! properties: with no further fault every run ends, and whatever the faults every recovery
//! pass ends.
//!
//! The checker is shown able to fail: the earlier protocol (`Variant::BeforeFix`), and mutations of
//! it, each yield a counterexample, printed as the shortest trace found (for a liveness
//! property, a trace and then the cycle repeated forever).

use tool_sdk_tests::protocol::{explore, Counterexample, Model, Property, Variant};

/// The bounds: two calls (either may fail), two attempts per compensation, two pauses, and two
/// recoverers at once. With three calls and two recoverers at once the state space grows to
/// millions (minutes in a debug build); three calls are explored with one attempt and one
/// recoverer at a time below.
fn bounds() -> Model {
    Model::protocol(2, 2)
}

#[test]
fn every_property_holds_for_every_interleaving() {
    let explored = explore(&bounds());
    println!("{explored}");
    assert!(explored.violation.is_none(), "{explored}");
    // The documented gap is reachable (and counted, not hidden): the exploration did reach
    // crashes between an effect and its record.
    assert!(explored.gap_before_record > 0, "{explored}");
}

#[test]
fn the_same_holds_with_three_calls_or_three_attempts() {
    let three_calls = Model {
        replicas: 1,
        ..Model::protocol(3, 1)
    };
    for model in [three_calls, Model::protocol(1, 3)] {
        let explored = explore(&model);
        println!("{explored}");
        assert!(explored.violation.is_none(), "{explored}");
    }
}

/// Explores `variant` and returns its counterexample, after printing it.
fn counterexample_of(variant: Variant) -> Counterexample {
    let explored = explore(&bounds().with(variant));
    println!("{explored}");
    match explored.violation {
        Some(counterexample) => counterexample,
        None => panic!("no counterexample for {variant:?}: {explored}"),
    }
}

/// Explores `variant` and returns the property it violates, after printing the trace.
fn violation_of(variant: Variant) -> Property {
    counterexample_of(variant).property
}

#[test]
fn before_the_fix_a_success_is_lost() {
    assert_eq!(violation_of(Variant::BeforeFix), Property::NothingLost);
}

#[test]
fn claiming_a_live_run_makes_two_owners() {
    assert_eq!(violation_of(Variant::ClaimIgnoresLease), Property::OneOwner);
}

#[test]
fn a_claim_that_hands_over_rolled_back_calls_repeats_them() {
    assert_eq!(
        violation_of(Variant::ClaimReadsEverything),
        Property::RepeatOnlyAfterInterruption
    );
}

#[test]
fn undoing_the_failed_call_is_a_spurious_compensation() {
    assert_eq!(
        violation_of(Variant::RollbackIncludesFailedCall),
        Property::NoSpuriousCompensation
    );
}

#[test]
fn a_recoverer_that_cannot_reclaim_its_released_run_leaves_it_behind() {
    assert_eq!(
        violation_of(Variant::ClaimSkipsOwnRuns),
        Property::NothingLost
    );
}

#[test]
fn finishing_a_recovery_after_a_timeout_loses_the_call() {
    assert_eq!(
        violation_of(Variant::RecoveryFinishesAfterTimeout),
        Property::NothingLost
    );
}

#[test]
fn a_local_only_compensation_tried_once_loses_the_call() {
    assert_eq!(
        violation_of(Variant::LocalOnlyNotRetried),
        Property::NothingLost
    );
}

#[test]
fn a_finish_that_forgets_the_owner_reports_success_after_a_rollback() {
    assert_eq!(
        violation_of(Variant::FinishForgetsOwner),
        Property::NothingLost
    );
}

/// A compensation that outlasts the lease, with the lease renewed only before it: the lease
/// runs out with no fault, the other recoverer takes the run, the first one's write is refused,
/// and it takes the run back the same way. The cycle itself has no fault in it.
#[test]
fn renewing_only_before_an_action_lets_two_recoverers_take_a_run_from_each_other_forever() {
    let counterexample = counterexample_of(Variant::RenewOnlyBeforeAction);
    assert_eq!(counterexample.property, Property::Terminates);
    assert!(!counterexample.cycle.is_empty(), "{counterexample}");
    assert!(
        counterexample
            .cycle
            .iter()
            .all(|(step, _)| !step.is_fault()),
        "{counterexample}"
    );
}

/// With the lease renewed during every action, a recoverer loses a run only after it stalled,
/// and can take it back only after the new owner stalled too: each round of the back and
/// forth takes a fault, so `Terminates` (no fault after the last) holds even with this
/// mutation. What it breaks is that a recovery pass ends however the faults fall: a pass that
/// claims again a run it lost can be kept going forever by stalls.
#[test]
fn a_pass_that_claims_a_lost_run_again_may_never_end() {
    assert_eq!(violation_of(Variant::ReclaimAfterLoss), Property::PassesEnd);
}

/// The run pauses, R1 takes it and runs the gated call, and the run pauses again on the same
/// call; R2, holding the same decisions, takes the second pause as if it were the first.
#[test]
fn taking_whatever_pause_the_run_is_in_runs_a_gated_call_twice_on_one_approval() {
    assert_eq!(
        violation_of(Variant::TakeAnyPause),
        Property::OneRunPerApproval
    );
}
