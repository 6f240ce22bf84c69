//! The round-robin arbiter of a queue's simultaneous arrivals (DESIGN §2b).
//!
//! Owns: [`admit_order`]. Arrivals that reach one queue (an ATM output port, a packet line's
//! FIFO) at the same instant are collected with the id of their input, then enter in the
//! round-robin order of those inputs: the queue keeps a pointer to the input that goes first
//! at its next tie, and after a tie between inputs the pointer moves to one past the input
//! that went first — the rule of a hardware round-robin arbiter. No input is favoured by its
//! index: lock-stepped greedy inputs share a port equally, and symmetric sources see equal
//! loss (`tests/it/simultaneous_events.rs`). Input ids are arbitrary distinct `u32`s; the
//! cyclic order is theirs, modulo 2^32.

/// Put `batch` (arrivals of one instant, with their input ids) in the order they enter: by
/// input, cyclically from `*pointer`; an input's own arrivals keep their order. Moves the
/// pointer to one past the first input if more than one input took part.
pub fn admit_order<T>(batch: &mut [(u32, T)], pointer: &mut u32) {
    let from = *pointer;
    // Insertion sort: stable, no allocation, and a batch is a few arrivals.
    for i in 1..batch.len() {
        let mut j = i;
        while j > 0 && batch[j - 1].0.wrapping_sub(from) > batch[j].0.wrapping_sub(from) {
            batch.swap(j - 1, j);
            j -= 1;
        }
    }
    if batch.iter().any(|a| a.0 != batch[0].0) {
        *pointer = batch[0].0.wrapping_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(inputs: &[u32], pointer: &mut u32) -> Vec<(u32, usize)> {
        let mut b: Vec<(u32, usize)> = inputs.iter().copied().zip(0..).collect();
        admit_order(&mut b, pointer);
        b
    }

    #[test]
    fn inputs_enter_cyclically_from_the_pointer_and_the_pointer_moves_past_the_first() {
        let mut p = 0;
        assert_eq!(order(&[2, 0, 1], &mut p), [(0, 1), (1, 2), (2, 0)]);
        assert_eq!(p, 1);
        assert_eq!(order(&[2, 0, 1], &mut p), [(1, 2), (2, 0), (0, 1)]);
        assert_eq!(p, 2);
        assert_eq!(order(&[0, 2, 1], &mut p), [(2, 1), (0, 0), (1, 2)]);
        assert_eq!(p, 3);
        // Past the largest id the order wraps around to the smallest.
        assert_eq!(order(&[1, 2], &mut p), [(1, 0), (2, 1)]);
        assert_eq!(p, 2);
    }

    #[test]
    fn an_inputs_own_arrivals_keep_their_order_and_a_lone_input_leaves_the_pointer() {
        let mut p = 5;
        assert_eq!(order(&[7, 7, 7], &mut p), [(7, 0), (7, 1), (7, 2)]);
        assert_eq!(p, 5);
        assert_eq!(order(&[9, 6, 9, 6], &mut p), [(6, 1), (6, 3), (9, 0), (9, 2)]);
        assert_eq!(p, 7);
    }

    /// Over many ties of the same inputs, each input goes first equally often.
    #[test]
    fn in_lock_step_every_input_goes_first_in_turn() {
        let mut p = 0;
        let mut first = [0u32; 3];
        for _ in 0..300 {
            first[order(&[10, 20, 30], &mut p)[0].0 as usize / 10 - 1] += 1;
        }
        assert_eq!(first, [100, 100, 100]);
    }
}
