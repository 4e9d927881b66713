//! The run store's record-and-lease protocol, checked by exhaustive exploration rather than by
//! the cases we thought of: every interleaving of the runner, a recovering process, crashes,
//! lease expiries and compensation timeouts within the bounds (`tool_sdk_tests::protocol`).
//!
//! The checker is shown able to fail: the earlier protocol (`Variant::BeforeFix`), and mutations of
//! it, each yield a counterexample, printed as the shortest trace.

use tool_sdk_tests::protocol::{explore, Model, Property, Variant};

/// The bounds: two calls (either may fail), two attempts per compensation. With three calls
/// the state space grows to millions (minutes in a debug build); three calls are explored
/// with one attempt below.
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
    for model in [Model::protocol(3, 1), Model::protocol(1, 3)] {
        let explored = explore(&model);
        println!("{explored}");
        assert!(explored.violation.is_none(), "{explored}");
    }
}

/// Explores `variant` and returns the property it violates, after printing the trace.
fn violation_of(variant: Variant) -> Property {
    let explored = explore(&bounds().with(variant));
    println!("{explored}");
    match explored.violation {
        Some(counterexample) => counterexample.property,
        None => panic!("no counterexample for {variant:?}: {explored}"),
    }
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
