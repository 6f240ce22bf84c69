//! The `[[tcp]]` section: TCP connections, each a client and a server endpoint on two hosts.
//!
//! A connection either names a `[[vc]]` (or is joined by exactly one): its two
//! conversations are then declared to the endpoints' IP-over-ATM drivers as bound to that
//! PVC; or no VC joins the hosts and IP routes its datagrams (through routers, serial lines,
//! LANs, and VCs the drivers choose). Ports: the client's is `1024 + i`, the server's the
//! application's well-known port ([`server_port`]).
//!
//! Owns the checks of a connection (hosts, its VC, buffer and MSS sizes, start time,
//! application, duplicate-ACK threshold), the [`TcpConfig`] they give, and the
//! [`Conn`] values: two [`Endpoint`]s — each with its own random stream
//! (`Purpose::TcpEndpoint`, index 2·i for the client and 2·i + 1 for the server) for the
//! initial sequence number and the phases of the BSD timers — and the application (a bulk
//! sender, or a tcplib conversation with stream `Purpose::App`, index i).

use super::internet::PvcBinding;
use super::nodes::check_unique_name;
use super::nodes::Names;
use super::simulation::Run;
use super::vcs::{VcInfo, Vcs};
use crate::apps::bulk::BulkSender;
use crate::apps::conversation::{ConvApp, Kind as ConvKind};
use crate::apps::{App, Conn};
use crate::error::{Error, Result};
use crate::header::{Media, PacketHeader, Proto};
use crate::ids::ConnId;
use crate::ids::NodeId;
use crate::iface::Iface;
use crate::ip::Host;
use crate::pcap;
use crate::rng::{self, Purpose};
use crate::scenario::limits::{self, int_in, invalid, span};
use crate::scenario::model::{AppSec, TcpSec};
use crate::time::{SimDuration, SimTime};
use crate::transport::tcp::TcpConfig;
use crate::transport::Endpoint;

/// Largest window TCP can offer: 65535 << 14 (RFC 1323 §2.3).
const MAX_BUF_BYTES: i64 = 65535 << 14;

/// The dotted path of field `k` of `tcp[i]`.
fn at(i: usize, k: &str) -> String {
    format!("tcp[{i}].{k}")
}

/// Check `[[tcp]]` and build its connections, in document order.
/// Each connection bound to a VC adds the bindings of its two conversations to `pvcs`.
/// `signalling`: the scenario has a `[signalling]` section (switched VCs can be set up).
#[allow(clippy::too_many_arguments)]
pub(super) fn connections(
    secs: &[TcpSec],
    names: &Names,
    vcs: &Vcs,
    hosts: &[Host],
    run: &Run,
    ifaces: &[Iface],
    signalling: bool,
    pvcs: &mut Vec<PvcBinding>,
) -> Result<Vec<Conn>> {
    let mut conns: Vec<Conn> = Vec::new();
    for (i, t) in secs.iter().enumerate() {
        let f = |k: &str| at(i, k);
        check_unique_name(&f("name"), &t.name, conns.iter().any(|c| c.name() == t.name), "connection")?;
        let client = names.host(f("client"), &t.client)?;
        let server = names.host(f("server"), &t.server)?;
        if client == server {
            return invalid(f("server"), "expected a different host than the client");
        }
        for (k, n) in [("client", client), ("server", server)] {
            if hosts[n.idx()].forwards() {
                return invalid(f(k), format!("expected a host, got router `{}`", hosts[n.idx()].name()));
            }
        }
        // The ATM nodes where the route enters and leaves the ATM network (the hosts
        // themselves if they are ATM-attached).
        let crossing = atm_span(hosts, ifaces, client, server).zip(atm_span(hosts, ifaces, server, client));
        let ends = match crossing {
            Some(((a, _), (b, _))) => [a, b],
            None => [client, server],
        };
        let end_names = [hosts[ends[0].idx()].name(), hosts[ends[1].idx()].name()];
        let vc = vc_of(i, t, vcs, [client, server], (ends, end_names))?;
        // Two ATM-attached hosts with one ATM hop between them and no VC: only a switched VC
        // could carry the connection, and without [signalling] every setup fails at once
        // (docs/scenario.md, "Where VCs come from"): the SYN would end as `no_vc`.
        if vc.is_none() && !signalling && ends == [client, server] && crossing.is_some() {
            return invalid(
                f("vc"),
                format!(
                    "expected a [[vc]] joining `{}` and `{}`, or a [signalling] section: the two hosts are \
                     ATM-attached and, with neither, no VC can carry the connection",
                    t.client, t.server
                ),
            );
        }
        if vc.is_none() && hosts[client.idx()].routes().get(server).is_none() {
            return invalid(
                f("server"),
                format!(
                    "expected a server reachable from `{}`: no [[vc]] joins them and IP has no route \
                     (connect them through [[link]]s and routers, [[serial]] lines or [[lan]]s)",
                    t.client
                ),
            );
        }
        let mtu = hosts[client.idx()].mtu_bytes().min(hosts[server.idx()].mtu_bytes()) as i64;
        let mut base = sized_config(i, t, mtu)?;
        let start = span(f("start_s"), t.start_s, 1.0, "s", limits::MAX_DURATION_S)?.as_secs_f64();
        if start >= run.duration_s {
            return invalid(
                f("start_s"),
                format!("expected a start time before the end of the run ({} s), got {start}", run.duration_s),
            );
        }
        let app = app_spec(i, &t.app)?;
        let dupacks =
            int_in(f("dupack_threshold"), t.dupack_threshold, 0, 1000, "a number of duplicate ACKs (0 = off)")?;
        base.dupack_threshold = if dupacks == 0 { u32::MAX } else { dupacks as u32 };
        let ports = [pcap::client_port(ConnId(i as u32)), server_port(&app)];
        let hdr = |side: usize| {
            let (me, peer) = if side == 0 { (client, server) } else { (server, client) };
            PacketHeader {
                src: me,
                dst: peer,
                proto: Proto::Tcp,
                src_port: ports[side],
                dst_port: ports[1 - side],
                tos: 0,
                media: Media::None,
            }
        };
        if let Some(vc) = vc {
            // Each end's driver carries this conversation's datagrams on the VC, under the
            // key its multiplexing policy gives them.
            for (side, n) in [(0, ends[0]), (1, ends[1])] {
                let d = vc.dir_from(n).expect("the VC joins the ATM ends of the route");
                let egress = ends[1 - side];
                let h = hdr(side);
                let atm = hosts[n.idx()].atm().expect("an ATM end has a driver");
                let key = atm.driver().config().mux_key(&h, h.conv_type(), egress);
                pvcs.push(PvcBinding { node: n, key, egress, vci: d.vci, field: f("vc") });
            }
        }
        let client_ep = endpoint(run.seed, 2 * i, base, client, hdr(0));
        let server_ep = endpoint(run.seed, 2 * i + 1, base, server, hdr(1));
        let lowat = base.snd_lowat_bytes as u64;
        let start = SimTime::ZERO + SimDuration::from_secs_f64(t.start_s);
        let app = match app {
            AppSpec::Bulk { write, total } => App::Bulk(BulkSender::new(write, total, lowat)),
            AppSpec::Conv(kind, item_scale, per_item) => {
                let mut a = ConvApp::new(kind, item_scale, rng::stream(run.seed, Purpose::App, i as u64), lowat);
                a.connection_per_item = per_item;
                App::Conv(Box::new(a))
            }
        };
        conns.push(Conn::fixed(t.name.clone(), start, [client_ep, server_ep], app));
    }
    Ok(conns)
}

/// Where the route from `from` to `to` crosses the ATM network: the node it enters by and
/// the node it leaves by (`None` if it does not cross it).
fn atm_span(hosts: &[Host], ifaces: &[Iface], from: NodeId, to: NodeId) -> Option<(NodeId, NodeId)> {
    let mut n = from;
    for _ in 0..hosts.len() {
        let hop = hosts[n.idx()].routes().get(to)?;
        if let Iface::Atm { .. } = ifaces[hop.iface.idx()] {
            return Some((n, hop.next));
        }
        n = hop.next;
    }
    None
}

/// Connection `i`'s VC: the one it names (joining the ATM `ends` of its route), or the only
/// one joining its two `hosts`, or else the only one joining the ATM ends; none if there is
/// none (the drivers on the route choose VCs).
fn vc_of<'v>(
    i: usize,
    t: &TcpSec,
    vcs: &'v Vcs,
    hosts: [NodeId; 2],
    (ends, end_names): ([NodeId; 2], [&str; 2]),
) -> Result<Option<&'v VcInfo>> {
    let f = |k: &str| at(i, k);
    let joins = |v: &VcInfo| v.ends == hosts || v.ends == [hosts[1], hosts[0]];
    let joins_ends = |v: &VcInfo| v.ends == ends || v.ends == [ends[1], ends[0]];
    match &t.vc {
        Some(name) => {
            let v = vcs
                .get(name.as_str())
                .ok_or_else(|| Error::invalid(f("vc"), format!("expected the name of a [[vc]], got `{name}`")))?;
            if !joins_ends(v) {
                return invalid(
                    f("vc"),
                    format!(
                        "expected a VC joining the ends of the connection's path over ATM (`{}` and `{}`), but `{name}` does not",
                        end_names[0],
                        end_names[1]
                    ),
                );
            }
            Ok(Some(v))
        }
        None => {
            // The only VC joining the two hosts, or else the only one joining the ATM ends.
            let mut found: Vec<(&&str, &VcInfo)> = vcs.iter().filter(|(_, v)| joins(v)).collect();
            if found.is_empty() {
                found = vcs.iter().filter(|(_, v)| joins_ends(v)).collect();
            }
            found.sort_by_key(|(n, _)| **n);
            match found.len() {
                1 => Ok(Some(found[0].1)),
                0 => Ok(None),
                _ => invalid(f("vc"), format!("several VCs join `{}` and `{}`: name one", end_names[0], end_names[1])),
            }
        }
    }
}

/// Connection `i`'s TCP configuration from its sizes (window, buffers, MSS at most the
/// hosts' `mtu` - 40) and switches; the duplicate-ACK threshold is left at its default.
fn sized_config(i: usize, t: &TcpSec, mtu: i64) -> Result<TcpConfig> {
    let f = |k: &str| at(i, k);
    let win =
        t.window_bytes.map(|w| int_in(f("window_bytes"), w, 1, MAX_BUF_BYTES, "a window in bytes")).transpose()?;
    let snd = t
        .snd_buf_bytes
        .map(|w| int_in(f("snd_buf_bytes"), w, 1, MAX_BUF_BYTES, "a buffer size in bytes"))
        .transpose()?;
    let rcv = t
        .rcv_buf_bytes
        .map(|w| int_in(f("rcv_buf_bytes"), w, 1, MAX_BUF_BYTES, "a buffer size in bytes"))
        .transpose()?;
    let mss = match t.mss_bytes {
        Some(m) => int_in(
            f("mss_bytes"),
            m,
            32,
            mtu - 40,
            "an MSS in bytes (BSD accepts no MSS under 32; at most the hosts' MTU - 40)",
        )?,
        None => mtu - 40,
    };
    let default = TcpConfig::default();
    let cfg = TcpConfig {
        variant: t.variant,
        sack: t.sack,
        timestamps: t.timestamps,
        hystart: t.hystart,
        ssthresh_on_loss: t.ssthresh_on_loss,
        mss_bytes: mss as u32,
        nagle: t.nagle,
        delayed_ack: t.delayed_ack,
        window_scaling: t.window_scaling,
        round_buffers_to_mss: t.bsd_buffer_rounding,
        snd_buf_bytes: snd.or(win).map_or(default.snd_buf_bytes, |b| b as u32),
        rcv_buf_bytes: rcv.or(win).map_or(default.rcv_buf_bytes, |b| b as u32),
        ..default
    };
    match cfg.conflict() {
        Some((field, expected)) => invalid(f(field), expected),
        None => Ok(cfg),
    }
}

/// A connection's application, checked.
/// The server's port: the application's well-known port (RFC 1700: telnet 23, FTP data
/// 20 — a tcplib FTP conversation is its file transfer —, SMTP 25, NNTP 119), and ttcp's
/// default 5001 for bulk transfers. The IP-over-ATM driver classifies by it (Mah §4.3.2).
fn server_port(app: &AppSpec) -> u16 {
    match app {
        AppSpec::Bulk { .. } => crate::pcap::SERVER_PORT,
        AppSpec::Conv(ConvKind::Telnet, ..) => 23,
        AppSpec::Conv(ConvKind::Ftp, ..) => 20,
        AppSpec::Conv(ConvKind::Smtp, ..) => 25,
        AppSpec::Conv(ConvKind::Nntp, ..) => 119,
        AppSpec::Conv(ConvKind::HttpGet, ..) => 80,
        AppSpec::Conv(ConvKind::FtpControl, ..) => 21,
        AppSpec::Conv(ConvKind::FtpData, ..) => 20,
    }
}

enum AppSpec {
    /// A bulk sender writing `write` bytes at a time, `total` in all (`None`: forever).
    Bulk { write: u64, total: Option<u64> },
    /// A tcplib conversation of this kind, item sizes scaled by the factor, and (FTP) a
    /// connection per item.
    Conv(ConvKind, f64, bool),
}

/// Check `tcp[i].app`.
fn app_spec(i: usize, app: &AppSec) -> Result<AppSpec> {
    let f = |k: &str| at(i, k);
    Ok(match app {
        AppSec::Bulk { write_bytes, total_bytes } => {
            let w = int_in(f("app.write_bytes"), *write_bytes, 1, i64::MAX, "a write size in bytes")?;
            let tot = total_bytes.map(|b| int_in(f("app.total_bytes"), b, 1, i64::MAX, "a byte count")).transpose()?;
            AppSpec::Bulk { write: w as u64, total: tot.map(|b| b as u64) }
        }
        AppSec::Ftp { data_connections: true, .. } => {
            return invalid(f("app.data_connections"), "expected false: FTP sessions run only in [[traffic]]")
        }
        AppSec::Ftp { item_scale, connection_per_item, .. } => {
            AppSpec::Conv(ConvKind::Ftp, item_scale_in(f("app.item_scale"), *item_scale)?, *connection_per_item)
        }
        AppSec::Nntp { item_scale } => {
            AppSpec::Conv(ConvKind::Nntp, item_scale_in(f("app.item_scale"), *item_scale)?, false)
        }
        AppSec::Smtp { handshake: false, .. } => {
            return invalid(f("app.handshake"), "expected true: SMTP without its handshake runs only in [[traffic]]")
        }
        AppSec::Smtp { item_scale, .. } => {
            AppSpec::Conv(ConvKind::Smtp, item_scale_in(f("app.item_scale"), *item_scale)?, false)
        }
        AppSec::Telnet { keystrokes: true } => {
            return invalid(f("app.keystrokes"), "expected false: TELNET with keystrokes runs only in [[traffic]]")
        }
        AppSec::Telnet { .. } => AppSpec::Conv(ConvKind::Telnet, 1.0, false),
        AppSec::Http {} | AppSec::Audio { .. } | AppSec::Video { .. } => {
            return invalid(
                f("app.kind"),
                "expected bulk, ftp, nntp, smtp or telnet: http, audio and video run only in [[traffic]]",
            )
        }
    })
}

fn item_scale_in(field: String, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 && v <= 1e6 {
        Ok(v)
    } else {
        invalid(field, format!("expected a positive size factor (at most 1e6), got {v}"))
    }
}

/// The endpoint on host `h`, sending on VC direction `d`, with random stream `index`.
fn endpoint(seed: u64, index: usize, base: TcpConfig, h: NodeId, hdr: PacketHeader) -> Endpoint {
    Endpoint::new(base, h, hdr, rng::stream(seed, Purpose::TcpEndpoint, index as u64))
}
