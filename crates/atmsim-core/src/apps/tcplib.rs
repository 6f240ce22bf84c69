//! The tcplib empirical tables (Danzig & Jamin 1991) that drive the Cáceres workloads.
//!
//! Owns: [`Tables`] and [`tables`], the nine `value,cdf` tables of `data/tcplib/` (see
//! `data/tcplib/SOURCES.md`), compiled into the library and parsed once. Units: bytes for
//! sizes, milliseconds for times, counts for item numbers. tcplib has no table for TELNET
//! responder (echo) sizes nor for the time between conversations (Cáceres §2.4: a source
//! starts its next conversation as soon as the previous one ends).

use crate::dist::EmpiricalCdf;
use std::sync::OnceLock;

/// The tcplib tables.
#[derive(Debug)]
pub struct Tables {
    /// User bytes per TELNET originator packet.
    pub telnet_pktsize: EmpiricalCdf,
    /// Gap between TELNET originator packets \[ms\].
    pub telnet_interarrival_ms: EmpiricalCdf,
    /// TELNET conversation length \[ms\].
    pub telnet_duration_ms: EmpiricalCdf,
    /// Items (files) per FTP conversation.
    pub ftp_nitems: EmpiricalCdf,
    /// Bytes per FTP item.
    pub ftp_itemsize: EmpiricalCdf,
    /// FTP control-connection segment size \[bytes\].
    pub ftp_ctlsize: EmpiricalCdf,
    /// Articles per NNTP conversation.
    pub nntp_nitems: EmpiricalCdf,
    /// Bytes per NNTP article.
    pub nntp_itemsize: EmpiricalCdf,
    /// Bytes per SMTP message.
    pub smtp_itemsize: EmpiricalCdf,
}

macro_rules! table {
    ($file:literal) => {
        EmpiricalCdf::from_csv($file, include_str!(concat!("../../../../data/tcplib/", $file)))
            .expect("shipped tcplib table is well-formed (tested)")
    };
}

/// The tables, parsed on first use.
pub fn tables() -> &'static Tables {
    static T: OnceLock<Tables> = OnceLock::new();
    T.get_or_init(|| Tables {
        telnet_pktsize: table!("telnet_pktsize.csv"),
        telnet_interarrival_ms: table!("telnet_interarrival.csv"),
        telnet_duration_ms: table!("telnet_duration.csv"),
        ftp_nitems: table!("ftp_nitems.csv"),
        ftp_itemsize: table!("ftp_itemsize.csv"),
        ftp_ctlsize: table!("ftp_ctlsize.csv"),
        nntp_nitems: table!("nntp_nitems.csv"),
        nntp_itemsize: table!("nntp_itemsize.csv"),
        smtp_itemsize: table!("smtp_itemsize.csv"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Means and medians computed from the tables under linear interpolation, as listed in
    /// shared/data/SOURCES.md §1 (independently of this code).
    #[test]
    fn tables_have_the_documented_medians_and_means() {
        let t = tables();
        let cases: [(&str, &EmpiricalCdf, f64, f64); 9] = [
            ("telnet_pktsize", &t.telnet_pktsize, 1.0, 25.2),
            ("telnet_interarrival_ms", &t.telnet_interarrival_ms, 232.0, 1840.0),
            ("telnet_duration_ms", &t.telnet_duration_ms, 170_000.0, 675_000.0),
            ("ftp_nitems", &t.ftp_nitems, 3.2, 7.1),
            ("ftp_itemsize", &t.ftp_itemsize, 508.0, 39_900.0),
            ("ftp_ctlsize", &t.ftp_ctlsize, 25.0, 28.0),
            ("nntp_nitems", &t.nntp_nitems, 19.0, 383.0),
            ("nntp_itemsize", &t.nntp_itemsize, 1506.0, 2023.0),
            ("smtp_itemsize", &t.smtp_itemsize, 439.0, 1674.0),
        ];
        for (name, d, median, mean) in cases {
            let m = d.mean();
            let q = d.quantile(0.5);
            assert!((m - mean).abs() / mean < 0.02, "{name}: mean {m} vs {mean}");
            assert!((q - median).abs() / median < 0.06, "{name}: median {q} vs {median}");
        }
    }
}
