//! The QoS policies of the IP-over-ATM driver and the design space they span with
//! multiplexing and VC management (Mah 1996, Chapter 4).
//!
//! Owns: [`QosPolicy`] (a [`Scheme`] and the [`Favoured`] applications it serves), the
//! per-conversation-type traffic parameters of Tab 4-5 ([`QosParams`], [`tab_4_5`]), the
//! static-priority levels of Tab 4-6 ([`QosPolicy::sp_level`]), and [`Configuration`]: one
//! point of the thesis' design space, its canonical name `<qos>-<mux>-<vc>` (§2.6), the
//! validity rules of §2.6/§3.5.1/§5.3 and the list of all 103 configurations (§3.5.1), in
//! the study's order: the one list of them, which Python reads as
//! `atmsim._core.MAH_CONFIGURATIONS` and derives its own names from.
//!
//! **Schemes** (Tab 2-1, Tab 4-4): `noqos` (first come first served, everything best effort),
//! `sp` (static priority: the favoured applications' VCs get the level of Tab 4-6; no rate
//! control, no admission control), `wc` and `nwc` (rate-controlled static priority,
//! work-conserving and non-work-conserving: the favoured applications' VCs carry the Tab 4-5
//! traffic parameters, are regulated and admitted against their delay bound).
//!
//! **Favoured applications** (§4.4–4.6): telnet, ftp (control and data), http, audio,
//! video; `isp` = telnet + HTTP, `av` = audio + video, `qos1` = all five. SMTP, NNTP and
//! every application a policy does not name are always best effort (Tab 4-6 caption).
//!
//! **Levels.** Tab 4-2 gives four guaranteed levels with RCSP delay bounds of 16, 32, 64 and
//! 128 cell times (4.4, 8.8, 17.6 and 35.3 ms on a T1). Under `wc`/`nwc` a VC's level follows
//! from its requested local delay bound `d` (Tab 4-5) by the next lower supported bound of
//! that column (spec `mah96.md` §4.4, "Derived"); under `sp` the thesis lists the levels in
//! Tab 4-6. Both give the same level for every type (tested below), so [`QosPolicy::sp_level`]
//! is the one table and the admission layer derives its own level from `d`.
//!
//! **Names.** Canonical `<qos>-<mux>-<vc>`, e.g. `sp-telnet-conv-svccache`. Also accepted
//! (spec §4.7 \[R\]): `sp-noqos` for `noqos` (Tab 4-6, §5.5), and the multiplexing and VC
//! parts in either order (the thesis writes "noqos-*-pvc-router", §2.6). Anything else is an
//! error naming the part that is wrong and what it may be.

use super::classify::ConvType;
use super::policy::{MuxPolicy, VcPolicy};
use crate::time::SimDuration;
use std::fmt;

/// How the driver treats favoured traffic (Tab 4-4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    Noqos,
    Sp,
    Wc,
    Nwc,
}

impl Scheme {
    /// The schemes that favour applications, in the thesis' order (Tab 3-4).
    pub const FAVOURING: [Scheme; 3] = [Scheme::Sp, Scheme::Wc, Scheme::Nwc];

    /// Its name in QoS policy names.
    pub const fn name(self) -> &'static str {
        match self {
            Scheme::Noqos => "noqos",
            Scheme::Sp => "sp",
            Scheme::Wc => "wc",
            Scheme::Nwc => "nwc",
        }
    }
}

/// The applications a QoS policy favours (§4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Favoured {
    Telnet,
    Ftp,
    Http,
    Audio,
    Video,
    /// Telnet and HTTP ("interactive applications of interest to present-day Internet
    /// Service Providers").
    Isp,
    /// Audio and video.
    Av,
    /// Telnet, FTP, HTTP, audio and video.
    Qos1,
}

impl Favoured {
    pub const ALL: [Favoured; 8] = [
        Favoured::Telnet,
        Favoured::Ftp,
        Favoured::Http,
        Favoured::Audio,
        Favoured::Video,
        Favoured::Isp,
        Favoured::Av,
        Favoured::Qos1,
    ];

    /// Its name in QoS policy names.
    pub const fn name(self) -> &'static str {
        match self {
            Favoured::Telnet => "telnet",
            Favoured::Ftp => "ftp",
            Favoured::Http => "http",
            Favoured::Audio => "audio",
            Favoured::Video => "video",
            Favoured::Isp => "isp",
            Favoured::Av => "av",
            Favoured::Qos1 => "qos1",
        }
    }

    /// Does the policy favour conversations of type `ty`?
    pub fn covers(self, ty: ConvType) -> bool {
        use ConvType::*;
        let (telnet, ftp, http, audio, video) = match self {
            Favoured::Telnet => (true, false, false, false, false),
            Favoured::Ftp => (false, true, false, false, false),
            Favoured::Http => (false, false, true, false, false),
            Favoured::Audio => (false, false, false, true, false),
            Favoured::Video => (false, false, false, false, true),
            Favoured::Isp => (true, false, true, false, false),
            Favoured::Av => (false, false, false, true, true),
            Favoured::Qos1 => (true, true, true, true, true),
        };
        match ty {
            TelnetUp | TelnetDown => telnet,
            FtpControlUp | FtpControlDown | FtpDataUp | FtpDataDown => ftp,
            HttpUp | HttpDown => http,
            Audio => audio,
            Video => video,
            Smtp | Nntp | Other => false,
        }
    }
}

/// A QoS policy: `noqos`, or a scheme with the applications it favours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QosPolicy {
    pub scheme: Scheme,
    /// `None` exactly when the scheme is `noqos`.
    pub favoured: Option<Favoured>,
}

impl QosPolicy {
    pub const NOQOS: QosPolicy = QosPolicy { scheme: Scheme::Noqos, favoured: None };

    /// The thesis' 25 QoS policies (Tab 3-4): noqos, then each favouring scheme with each
    /// application.
    pub fn all() -> Vec<QosPolicy> {
        let favouring = Scheme::FAVOURING
            .into_iter()
            .flat_map(|scheme| Favoured::ALL.into_iter().map(move |f| QosPolicy { scheme, favoured: Some(f) }));
        std::iter::once(QosPolicy::NOQOS).chain(favouring).collect()
    }

    /// Does this policy give conversations of type `ty` a guaranteed (or prioritised) VC?
    pub fn favours(&self, ty: ConvType) -> bool {
        self.favoured.is_some_and(|f| f.covers(ty))
    }

    /// The static-priority level of type `ty` under this policy (Tab 4-6), or `None` for
    /// best effort.
    pub fn sp_level(&self, ty: ConvType) -> Option<u8> {
        if !self.favours(ty) {
            return None;
        }
        use ConvType::*;
        Some(match ty {
            TelnetUp | TelnetDown => 1,
            FtpControlUp | FtpControlDown | Audio => 2,
            FtpDataUp | FtpDataDown | HttpUp | HttpDown | Video => 3,
            Smtp | Nntp | Other => return None,
        })
    }

    /// The traffic parameters a VC for type `ty` is set up with under this policy: those of
    /// Tab 4-5 under `wc`/`nwc` for favoured types, none otherwise (`sp` has no rate control).
    pub fn params(&self, ty: ConvType) -> Option<QosParams> {
        match self.scheme {
            Scheme::Wc | Scheme::Nwc if self.favours(ty) => tab_4_5(ty),
            _ => None,
        }
    }

    /// Parse a QoS policy name: `noqos` (or `sp-noqos`), or `sp-`, `wc-` or `nwc-` and an
    /// application (module docs).
    pub fn parse(name: &str) -> Result<QosPolicy, String> {
        let parts: Vec<&str> = name.trim().split('-').collect();
        match QosPolicy::parse_prefix(name, &parts)? {
            (q, []) => Ok(q),
            (_, [extra, ..]) => Err(format!("{name:?}: unexpected {extra:?} after the QoS policy")),
        }
    }

    /// The QoS policy at the head of `parts` (the pieces of `name` between dashes) and the
    /// pieces after it.
    fn parse_prefix<'a, 'b>(name: &str, parts: &'a [&'b str]) -> Result<(QosPolicy, &'a [&'b str]), String> {
        match parts {
            ["noqos", rest @ ..] | ["sp", "noqos", rest @ ..] => Ok((QosPolicy::NOQOS, rest)),
            [first, rest @ ..] if favouring(first).is_some() => {
                let scheme = favouring(first).expect("matched");
                let [app, rest @ ..] = rest else {
                    return Err(format!("{name:?}: expected an application after {first:?}, e.g. {first}-telnet"));
                };
                let favoured = Favoured::ALL.into_iter().find(|f| f.name() == *app).ok_or_else(|| {
                    let apps: Vec<&str> = Favoured::ALL.iter().map(|f| f.name()).collect();
                    let (last, others) = apps.split_last().expect("applications");
                    format!("{name:?}: unknown application {app:?} (expected {} or {last})", others.join(", "))
                })?;
                Ok((QosPolicy { scheme, favoured: Some(favoured) }, rest))
            }
            [first, ..] if !first.is_empty() => {
                Err(format!("{name:?}: unknown QoS policy {first:?} (expected noqos, sp-<app>, wc-<app> or nwc-<app>)"))
            }
            _ => Err(format!("{name:?}: empty QoS policy (expected noqos, sp-<app>, wc-<app> or nwc-<app>)")),
        }
    }
}

/// The favouring scheme named `name`.
fn favouring(name: &str) -> Option<Scheme> {
    Scheme::FAVOURING.into_iter().find(|s| s.name() == name)
}

impl fmt::Display for QosPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.scheme, self.favoured) {
            (Scheme::Noqos, _) => f.write_str(Scheme::Noqos.name()),
            (scheme, favoured) => write!(f, "{}-{}", scheme.name(), favoured.map_or("noqos", Favoured::name)),
        }
    }
}

/// The parameters given to signalling for a guaranteed VC (Tab 4-3, values of Tab 4-5):
/// the local delay bound `d` requested at each switch, the minimum and average inter-cell
/// spacings and the interval over which the average holds. Implicitly Z_min = 0
/// (deterministic), S_max = 48 bytes (one cell payload), W_min = 0 (§4.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QosParams {
    pub d: SimDuration,
    pub x_min: SimDuration,
    pub x_ave: SimDuration,
    pub interval: SimDuration,
}

/// The conversation types Tab 4-5 gives parameters for, in its row order (every other type is
/// always best effort).
pub const TAB_4_5_TYPES: [ConvType; 10] = [
    ConvType::TelnetUp,
    ConvType::TelnetDown,
    ConvType::FtpControlUp,
    ConvType::FtpControlDown,
    ConvType::FtpDataUp,
    ConvType::FtpDataDown,
    ConvType::HttpUp,
    ConvType::HttpDown,
    ConvType::Audio,
    ConvType::Video,
];

const fn tenths_of_ms(tenths: u64) -> SimDuration {
    SimDuration(tenths * 100_000_000)
}

/// Tab 4-5: the QoS parameters by conversation type ("up" is client to server). Times are
/// given here in tenths of a millisecond so that video's 2.6 ms and 3.5 ms are exact. SMTP,
/// NNTP and unclassified traffic have none (always best effort).
pub fn tab_4_5(ty: ConvType) -> Option<QosParams> {
    use ConvType::*;
    let (d, x_min, x_ave, interval) = match ty {
        TelnetUp => (100, 200, 500, 5_000),
        TelnetDown => (100, 100, 200, 10_000),
        FtpControlUp | FtpControlDown => (200, 1_000, 5_000, 50_000),
        FtpDataUp => (800, 1_000, 1_000, 20_000),
        FtpDataDown => (800, 200, 200, 20_000),
        HttpUp => (400, 500, 1_000, 100_000),
        HttpDown => (400, 40, 80, 10_000),
        Audio => (200, 40, 50, 1_000),
        Video => (500, 26, 35, 20_000),
        Smtp | Nntp | Other => return None,
    };
    let t = tenths_of_ms;
    Some(QosParams { d: t(d), x_min: t(x_min), x_ave: t(x_ave), interval: t(interval) })
}

/// One point of the design space (Tab 3-4): QoS policy, multiplexing, VC management.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Configuration {
    pub qos: QosPolicy,
    pub mux: MuxPolicy,
    pub vc: VcPolicy,
}

/// The multiplexing axis of the thesis' design space (Tab 3-4); Cáceres' per-type channels
/// are not part of it.
pub const MAH_MUX: [MuxPolicy; 3] = [MuxPolicy::Conv, MuxPolicy::App, MuxPolicy::Router];

/// The four setups every QoS policy ran in, in the thesis' order (§4.4: "app-svc,
/// app-svccache, conv-svc, and conv-svccache").
pub const SETUPS: [(MuxPolicy, VcPolicy); 4] = [
    (MuxPolicy::App, VcPolicy::Svc),
    (MuxPolicy::App, VcPolicy::SvcCache),
    (MuxPolicy::Conv, VcPolicy::Svc),
    (MuxPolicy::Conv, VcPolicy::SvcCache),
];

impl fmt::Display for Configuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}-{}", self.qos, self.mux.name(), self.vc.name())
    }
}

impl Configuration {
    /// Is this one of the thesis' configurations? The rules of §2.6, §3.5.1 and §5.3:
    /// (i) pvc only as noqos-router-pvc; (ii) router multiplexing only under noqos;
    /// (iii) QoS policies only with app or conv multiplexing and svc or svccache. Cáceres'
    /// per-type multiplexing is not part of Mah's space.
    pub fn check(&self) -> Result<(), String> {
        let name = self.to_string();
        match (self.qos.scheme, self.mux, self.vc) {
            (_, MuxPolicy::Type, _) => Err(format!("{name}: multiplexing must be conv, app or router")),
            (Scheme::Noqos, MuxPolicy::Router, _) => Ok(()),
            (_, MuxPolicy::Router, _) => Err(format!(
                "{name}: router multiplexing carries every application on one VC, so it runs under noqos only (Mah §5.3)"
            )),
            (_, _, VcPolicy::Pvc) => {
                Err(format!("{name}: pvc is used only as noqos-router-pvc (Mah §2.6, §3.5.1)"))
            }
            _ => Ok(()),
        }
    }

    /// Parse a configuration name (module docs, "Names") and check it.
    pub fn parse(name: &str) -> Result<Configuration, String> {
        let parts: Vec<&str> = name.trim().split('-').collect();
        let (qos, rest) = QosPolicy::parse_prefix(name, &parts)?;
        let (mut mux, mut vc) = (None, None);
        for p in rest {
            match (MAH_MUX.into_iter().find(|m| m.name() == *p), VcPolicy::ALL.into_iter().find(|v| v.name() == *p)) {
                (Some(m), _) if mux.is_none() => mux = Some(m),
                (_, Some(v)) if vc.is_none() => vc = Some(v),
                _ => {
                    let names = |n: &mut dyn Iterator<Item = &'static str>| n.collect::<Vec<_>>().join(", ");
                    return Err(format!(
                        "{name:?}: unexpected {p:?} (after the QoS policy: one of {} and one of {})",
                        names(&mut MAH_MUX.iter().map(|m| m.name())),
                        names(&mut VcPolicy::ALL.iter().map(|v| v.name())),
                    ));
                }
            }
        }
        let (Some(mux), Some(vc)) = (mux, vc) else {
            return Err(format!("{name:?}: expected <qos>-<mux>-<vc>, e.g. sp-telnet-conv-svccache"));
        };
        let c = Configuration { qos, mux, vc };
        c.check()?;
        Ok(c)
    }

    /// Every configuration of the thesis (§3.5.1: "a total of 103 different network
    /// configurations"; spec `mah96.md` Appendix B), in the order the reproduction runs and
    /// reports them: the seven best-effort ones first (noqos in the four [`SETUPS`], then
    /// noqos-router-{pvc, svc, svccache}), then each of the 24 other QoS policies
    /// ([`QosPolicy::all`]: sp, wc, nwc, each with telnet … qos1) in the four setups.
    pub fn all() -> Vec<Configuration> {
        let at = |qos: QosPolicy| SETUPS.map(|(mux, vc)| Configuration { qos, mux, vc });
        let router = VcPolicy::ALL.map(|vc| Configuration { qos: QosPolicy::NOQOS, mux: MuxPolicy::Router, vc });
        let qos_aware = QosPolicy::all().into_iter().filter(|q| q.scheme != Scheme::Noqos).flat_map(at);
        at(QosPolicy::NOQOS).into_iter().chain(router).chain(qos_aware).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ConvType::*;

    const FAVOURABLE: [ConvType; 10] = TAB_4_5_TYPES;
    const BEST_EFFORT: [ConvType; 3] = [Smtp, Nntp, Other];

    #[test]
    fn the_design_space_has_the_thesis_103_configurations_each_named_once() {
        let all = Configuration::all();
        assert_eq!(all.len(), 103, "§3.5.1");
        let mut names: Vec<String> = all.iter().map(|c| c.to_string()).collect();
        for (c, n) in all.iter().zip(&names) {
            assert_eq!(Configuration::parse(n).as_ref(), Ok(c), "{n} round trip");
        }
        // The study's order: best effort first, then policy by policy in the §4.4 setups.
        assert_eq!(
            names[..7],
            [
                "noqos-app-svc",
                "noqos-app-svccache",
                "noqos-conv-svc",
                "noqos-conv-svccache",
                "noqos-router-pvc",
                "noqos-router-svc",
                "noqos-router-svccache"
            ]
        );
        assert_eq!(
            names[7..11],
            ["sp-telnet-app-svc", "sp-telnet-app-svccache", "sp-telnet-conv-svc", "sp-telnet-conv-svccache"]
        );
        assert_eq!(names.last().map(String::as_str), Some("nwc-qos1-conv-svccache"));
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 103);
        assert_eq!(all.iter().filter(|c| c.qos.scheme != Scheme::Noqos).count(), 96, "24 policies × 4 setups");
        assert_eq!(QosPolicy::all().len(), 25, "Tab 3-4: noqos + 3 × 8");
    }

    #[test]
    fn names_in_the_thesis_forms_are_canonicalised() {
        let canon = |s: &str| Configuration::parse(s).map(|c| c.to_string());
        assert_eq!(canon("sp-telnet-conv-svccache").as_deref(), Ok("sp-telnet-conv-svccache"));
        assert_eq!(canon("noqos-pvc-router").as_deref(), Ok("noqos-router-pvc"), "§2.6 order");
        assert_eq!(canon("sp-noqos-app-svc").as_deref(), Ok("noqos-app-svc"), "Tab 4-6 name");
        assert_eq!(canon("nwc-qos1-svccache-app").as_deref(), Ok("nwc-qos1-app-svccache"));
    }

    #[test]
    fn a_qos_policy_alone_parses_and_prints_back() {
        for name in ["noqos", "sp-telnet", "wc-isp", "nwc-qos1"] {
            assert_eq!(QosPolicy::parse(name).map(|q| q.to_string()).as_deref(), Ok(name));
        }
        assert_eq!(QosPolicy::parse("sp-noqos"), Ok(QosPolicy::NOQOS));
        assert!(QosPolicy::parse("sp-telnet-conv").unwrap_err().contains("unexpected \"conv\""));
        assert!(QosPolicy::parse("wc").unwrap_err().contains("expected an application after \"wc\""));
        assert!(QosPolicy::parse("").unwrap_err().contains("empty QoS policy"));
    }

    #[test]
    fn invalid_combinations_are_refused_with_the_rule() {
        let err = |s: &str| Configuration::parse(s).unwrap_err();
        assert!(err("sp-telnet-router-svc").contains("noqos only"));
        assert!(err("wc-audio-conv-pvc").contains("noqos-router-pvc"));
        assert!(err("noqos-app-pvc").contains("noqos-router-pvc"));
        assert!(err("sp-mail-conv-svc").contains("unknown application \"mail\""));
        assert!(err("rcsp-telnet-conv-svc").contains("unknown QoS policy"));
        assert!(err("noqos-conv").contains("expected <qos>-<mux>-<vc>"));
        assert!(err("noqos-conv-svc-app").contains("unexpected \"app\""));
        assert!(err("noqos-type-svc").contains("unexpected \"type\""));
        assert!(err("").contains("expected"));
    }

    /// Tab 4-6, row by row: the levels of every sp policy (blank = best effort).
    #[test]
    fn static_priority_levels_are_those_of_tab_4_6() {
        let sp = |f: Favoured| QosPolicy { scheme: Scheme::Sp, favoured: Some(f) };
        let row = |f: Favoured| -> Vec<Option<u8>> { FAVOURABLE.iter().map(|&t| sp(f).sp_level(t)).collect() };
        let (n, l1, l2, l3) = (None, Some(1), Some(2), Some(3));
        assert_eq!(row(Favoured::Telnet), [l1, l1, n, n, n, n, n, n, n, n]);
        assert_eq!(row(Favoured::Ftp), [n, n, l2, l2, l3, l3, n, n, n, n]);
        assert_eq!(row(Favoured::Http), [n, n, n, n, n, n, l3, l3, n, n]);
        assert_eq!(row(Favoured::Audio), [n, n, n, n, n, n, n, n, l2, n]);
        assert_eq!(row(Favoured::Video), [n, n, n, n, n, n, n, n, n, l3]);
        assert_eq!(row(Favoured::Isp), [l1, l1, n, n, n, n, l3, l3, n, n]);
        assert_eq!(row(Favoured::Av), [n, n, n, n, n, n, n, n, l2, l3]);
        assert_eq!(row(Favoured::Qos1), [l1, l1, l2, l2, l3, l3, l3, l3, l2, l3]);
        for t in BEST_EFFORT {
            assert_eq!(sp(Favoured::Qos1).sp_level(t), None, "always best effort");
        }
        assert!(FAVOURABLE.iter().all(|&t| QosPolicy::NOQOS.sp_level(t).is_none()));
    }

    /// Tab 4-6's levels are the next lower RCSP delay bound of Tab 4-2 (16, 32, 64, 128 cell
    /// times of 424 bits at T1's 1.536 Mb/s payload rate) below Tab 4-5's `d`.
    #[test]
    fn tab_4_6_levels_follow_from_tab_4_5_delay_bounds() {
        // One cell time in ps: 424 / 1.536e6 s = 276,041,666.67 ps; compare in exact
        // integers: n cell times ≤ d  ⇔  n · 424 · 10^12 ≤ d_ps · 1_536_000.
        let fits = |cells: u64, d: SimDuration| (cells * 424 * 1_000_000_000_000) as u128 <= d.0 as u128 * 1_536_000;
        let qos1 = QosPolicy { scheme: Scheme::Sp, favoured: Some(Favoured::Qos1) };
        for t in FAVOURABLE {
            let p = tab_4_5(t).expect("a Tab 4-5 row");
            let level = [128u64, 64, 32, 16].iter().position(|&c| fits(c, p.d)).map(|i| 3 - i as u8);
            assert_eq!(level, qos1.sp_level(t), "{t:?}: d = {:?}", p.d);
        }
    }

    /// Tab 4-5's rates are the 48-byte cell payload over each spacing (the table's own Kbps
    /// column), e.g. HTTP down 4 ms → 96.0 Kbps, video 2.6 ms → 148 Kbps.
    #[test]
    fn tab_4_5_spacings_give_the_tables_rates() {
        let kbps = |x: SimDuration| 384.0 / (x.0 as f64 * 1e-12) / 1e3;
        let peak = |t| kbps(tab_4_5(t).unwrap().x_min);
        let ave = |t| kbps(tab_4_5(t).unwrap().x_ave);
        let close = |a: f64, b: f64| (a - b).abs() <= 0.006 * b;
        assert!(close(peak(TelnetUp), 19.2) && close(ave(TelnetUp), 7.68));
        assert!(close(peak(TelnetDown), 38.4) && close(ave(TelnetDown), 19.2));
        assert!(close(peak(FtpControlUp), 3.84) && close(ave(FtpControlDown), 0.77));
        assert!(close(peak(FtpDataUp), 3.84) && close(ave(FtpDataDown), 19.2));
        assert!(close(peak(HttpUp), 7.68) && close(ave(HttpUp), 3.84));
        assert!(close(peak(HttpDown), 96.0) && close(ave(HttpDown), 48.0));
        assert!(close(peak(Audio), 96.0) && close(ave(Audio), 76.8));
        assert!(close(peak(Video), 148.0) && close(ave(Video), 110.0));
        for t in BEST_EFFORT {
            assert!(tab_4_5(t).is_none());
        }
    }

    #[test]
    fn only_rate_controlled_schemes_carry_traffic_parameters() {
        let p = |scheme| QosPolicy { scheme, favoured: Some(Favoured::Isp) };
        assert_eq!(p(Scheme::Sp).params(TelnetUp), None);
        assert_eq!(p(Scheme::Wc).params(TelnetUp), tab_4_5(TelnetUp));
        assert_eq!(p(Scheme::Nwc).params(HttpDown), tab_4_5(HttpDown));
        assert_eq!(p(Scheme::Nwc).params(Audio), None, "isp does not favour audio");
        assert_eq!(QosPolicy::NOQOS.params(TelnetUp), None);
    }
}
