//! Integration tests of atmsim-core; each module is named after a behaviour. They use the
//! public API only (as `atmsim_core::…`) and are compiled into the library's unit-test binary
//! (`src/lib.rs`, the end; `cargo test -p atmsim-core --lib` runs them with the unit tests).

mod abr_parking_lot;
mod abr_rate_control;
mod cells_flow_through_switches;
mod common;
mod datagrams_are_accounted;
mod host_processing;
mod inputs_stay_in_range;
mod internetwork;
mod layers_call_down;
mod link_clocks;
mod magic_table1;
mod mah_workload;
mod names_are_declared_once;
mod on_off_sources;
mod pcap_captures;
mod qos_policies;
mod results_are_unchanged;
mod scenario_errors;
mod shaping_and_pacing;
mod signalling_sets_up_vcs;
mod simultaneous_events;
mod tcp_recovers_from_cell_loss;
mod tcplib_conversations;
mod traffic_generators;
