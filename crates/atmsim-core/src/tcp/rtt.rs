//! Jacobson/Karels RTO estimator (stub; being written).
