//! Congestion control (stub; being written).
