//! Sessions: application conversations made of several TCP connections, as Mah's INSANE
//! workload runs them (Mah 1996 §3.3.2, §3.3.3, App. A; spec mah96.md §2.3–2.4, A-20).
//!
//! Owns: [`Session`] (one FTP session or one Web browser), [`Role`] (what a connection does
//! for its session) and [`Open`] (a connection the session asks the network to open). The
//! logic is sans-I/O: the network ([`crate::net`]) opens the connections, runs their
//! scripts ([`crate::apps::conversation`]) and tells the session when one has finished its
//! script (`on_done`), when the control connection stands at a gate (`on_gate`) and when a
//! think time is over (`on_timer`). The session records its samples in its generator's
//! [`GenStats`].
//!
//! **FTP session** (§3.3.2, A-20): the client opens a control connection to the server's
//! port 21 and exchanges one tcplib control message each way (the login); then for each of
//! `n ~ ftp_nitems` files (rounded up, ≥ 1) the client sends a request and the server a
//! reply on the control connection, and the server opens a data connection from its port 20
//! to a fresh client port (active FTP) carrying the file (`ftp_itemsize` bytes × scale; all
//! transfers are downloads). The control connection waits at a gate while the file moves;
//! when the client has read the whole file the next request goes at once (no gap between
//! files). After the last file a request and reply (QUIT) end the control script and the
//! client closes. Samples: `file_s` = data-connection open → last byte read by the client;
//! `session_s` = control-connection open → the client's close.
//!
//! **Web browser** (App. A Fig. ): a sequential HTTP/1.0 browser that never ends. A
//! *visit* picks a server by Zipf's law over the generator's ranked servers and fetches
//! `consecutive_docs` documents from it; a document (page) is `files_per_page` files, each on
//! a new TCP connection to port 80 (request of `request_bytes` up, reply of `reply_bytes`
//! down; the next file starts when the client has read the previous reply); after each page
//! the user thinks for `think_time`. Samples: `item_s` = the file's connection open → reply
//! read; `page_s` = the first file's open → the last file's reply read (think time
//! excluded).
//!
//! A connection TCP gives up on counts as done without a sample (`aborted` in the
//! generator); the session goes on with its next step.

use crate::apps::conversation::Kind;
use crate::apps::generator::{choose, Choice, GenStats};
use crate::apps::http;
use crate::apps::tcplib::tables;
use crate::ids::ConnId;
use crate::ids::NodeId;
use crate::rng::Stream;
use crate::time::SimTime;

/// What a connection does for its session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    FtpControl,
    FtpData,
    HttpGet,
}

/// A connection to open now: `from` opens actively to `to`'s `port` and the two run
/// `script` (`(sent by the opener, bytes)` messages) with `gates`.
#[derive(Clone, Debug, PartialEq)]
pub struct Open {
    pub role: Role,
    pub kind: Kind,
    pub from: NodeId,
    pub to: NodeId,
    pub port: u16,
    pub script: Vec<(bool, u64)>,
    pub gates: Vec<usize>,
}

enum State {
    Ftp { server: NodeId, scale: f64, control_open: SimTime, data_open: SimTime },
    Browser { server: NodeId, docs_left: u32, files_left: u32, page_open: SimTime, get_open: SimTime },
}

/// One session.
pub struct Session {
    /// The generator that spawned it.
    pub gen: u32,
    pub client: NodeId,
    rng: Stream,
    state: State,
}

/// Well-known ports (§4.3.2: the driver classifies by them).
pub const FTP_CONTROL_PORT: u16 = 21;
pub const FTP_DATA_PORT: u16 = 20;
pub const HTTP_PORT: u16 = 80;

fn ctl(r: &mut Stream) -> u64 {
    (tables().ftp_ctlsize.sample(r).round() as u64).max(1)
}

impl Session {
    /// An FTP session from `client` to `server` starting now; returns it and its control
    /// connection.
    pub fn ftp(gen: u32, client: NodeId, server: NodeId, scale: f64, mut rng: Stream, now: SimTime) -> (Self, Open) {
        let n = (tables().ftp_nitems.sample(&mut rng).ceil() as u32).max(1);
        // login, n × (request, reply), quit: gates before each request after a file.
        let mut script = vec![(true, ctl(&mut rng)), (false, ctl(&mut rng))];
        let mut gates = Vec::with_capacity(n as usize);
        for _ in 0..n {
            script.push((true, ctl(&mut rng)));
            script.push((false, ctl(&mut rng)));
            gates.push(script.len());
        }
        script.push((true, ctl(&mut rng)));
        script.push((false, ctl(&mut rng)));
        let open = Open {
            role: Role::FtpControl,
            kind: Kind::FtpControl,
            from: client,
            to: server,
            port: FTP_CONTROL_PORT,
            script,
            gates,
        };
        let state = State::Ftp { server, scale, control_open: now, data_open: now };
        (Session { gen, client, rng, state }, open)
    }

    /// A browser placed on `client` now; returns it and its first connection.
    pub fn browser(
        gen: u32,
        client: NodeId,
        servers: &[NodeId],
        choice: &mut Choice,
        rng: Stream,
        now: SimTime,
    ) -> (Self, Open) {
        let state = State::Browser { server: client, docs_left: 0, files_left: 0, page_open: now, get_open: now };
        let mut s = Session { gen, client, rng, state };
        s.visit(servers, choice);
        let open = s.start_page(now);
        (s, open)
    }

    /// The control connection reached a gate: open the next file's data connection.
    pub fn on_gate(&mut self, now: SimTime) -> Open {
        let client = self.client;
        let State::Ftp { server, scale, data_open, .. } = &mut self.state else {
            unreachable!("only FTP control connections have gates")
        };
        *data_open = now;
        let bytes = ((tables().ftp_itemsize.sample(&mut self.rng).round() * *scale).round() as u64).max(1);
        Open {
            role: Role::FtpData,
            kind: Kind::FtpData,
            from: *server,
            to: client,
            port: 0,
            script: vec![(true, bytes)],
            gates: Vec::new(),
        }
    }

    /// Connection `role` finished its script at `now` (`completed`) or was given up.
    /// Returns the next connection to open, or whether the control connection's gate opens
    /// (FTP data done), or `Next::Think(t)`, or `Next::End`.
    pub fn on_done(&mut self, role: Role, completed: bool, now: SimTime, stats: &mut GenStats) -> Next {
        match (&mut self.state, role) {
            (State::Ftp { data_open, .. }, Role::FtpData) => {
                if completed {
                    stats.metrics.record("file_s", now.since(*data_open).as_secs_f64());
                }
                Next::OpenGate
            }
            (State::Ftp { control_open, .. }, Role::FtpControl) => {
                if completed {
                    stats.metrics.record("session_s", now.since(*control_open).as_secs_f64());
                }
                Next::End
            }
            (State::Browser { files_left, get_open, page_open, docs_left, .. }, Role::HttpGet) => {
                if completed {
                    stats.metrics.record("item_s", now.since(*get_open).as_secs_f64());
                }
                *files_left -= 1;
                if *files_left > 0 {
                    return Next::Open(self.get(now));
                }
                stats.metrics.record("page_s", now.since(*page_open).as_secs_f64());
                *docs_left -= 1;
                Next::Think(now + http::think_time(&mut self.rng))
            }
            _ => unreachable!("a connection of another kind of session"),
        }
    }

    /// The think time after a page is over: the next page (of this visit or a new one).
    pub fn on_timer(&mut self, servers: &[NodeId], choice: &mut Choice, now: SimTime) -> Open {
        if matches!(self.state, State::Browser { docs_left: 0, .. }) {
            self.visit(servers, choice);
        }
        self.start_page(now)
    }

    fn visit(&mut self, servers: &[NodeId], choice: &mut Choice) {
        let client = self.client;
        let State::Browser { server, docs_left, .. } = &mut self.state else { unreachable!() };
        *server =
            choose(choice, servers, client, &mut self.rng).expect("the generator has a server besides the client");
        *docs_left = http::consecutive_docs(&mut self.rng);
    }

    fn start_page(&mut self, now: SimTime) -> Open {
        let State::Browser { files_left, page_open, .. } = &mut self.state else { unreachable!() };
        *files_left = http::files_per_page(&mut self.rng);
        *page_open = now;
        self.get(now)
    }

    fn get(&mut self, now: SimTime) -> Open {
        let State::Browser { server, get_open, .. } = &mut self.state else { unreachable!() };
        *get_open = now;
        let server = *server;
        let script = vec![(true, http::request_bytes(&mut self.rng)), (false, http::reply_bytes(&mut self.rng))];
        Open {
            role: Role::HttpGet,
            kind: Kind::HttpGet,
            from: self.client,
            to: server,
            port: HTTP_PORT,
            script,
            gates: Vec::new(),
        }
    }

    /// The server of a browser's current visit (tests).
    pub fn server(&self) -> NodeId {
        match self.state {
            State::Ftp { server, .. } | State::Browser { server, .. } => server,
        }
    }
}

/// What a session does after one of its connections is done.
#[derive(Clone, Debug, PartialEq)]
pub enum Next {
    Open(Open),
    OpenGate,
    Think(SimTime),
    End,
}

/// A running session, the connection it is waiting on at a gate (its FTP control
/// connection) and the number of connections it has opened.
pub struct SessionSlot {
    pub session: Session,
    pub control: Option<ConnId>,
    pub opened: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::Zipf;
    use crate::rng::{stream, Purpose};
    use crate::time::SimDuration;

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    /// An FTP session: login, one request/reply per file with a gate after it, quit; each
    /// gate opens a data connection from the server's port 20 carrying one file; the samples
    /// are the data connection's and the session's open-to-done times.
    #[test]
    fn an_ftp_session_is_a_control_connection_and_a_data_connection_per_file() {
        for k in 0..20 {
            let (c, srv) = (NodeId(1), NodeId(2));
            let (mut s, ctl) = Session::ftp(0, c, srv, 1.0, stream(4, Purpose::App, k), at(0));
            let n = ctl.gates.len();
            assert!(n >= 1);
            assert_eq!((ctl.from, ctl.to, ctl.port, ctl.role), (c, srv, FTP_CONTROL_PORT, Role::FtpControl));
            assert_eq!(ctl.script.len(), 2 + 2 * n + 2);
            assert_eq!(ctl.gates, (0..n).map(|i| 4 + 2 * i).collect::<Vec<_>>());
            assert!(ctl.script.iter().enumerate().all(|(i, m)| m.0 == (i % 2 == 0) && m.1 >= 1));
            let mut stats = GenStats::default();
            for i in 0..n as u64 {
                let d = s.on_gate(at(100 * i + 10));
                assert_eq!((d.from, d.to, d.role, d.script.len()), (srv, c, Role::FtpData, 1));
                assert!(d.script[0].0 && d.script[0].1 >= 1);
                assert_eq!(s.on_done(Role::FtpData, true, at(100 * i + 60), &mut stats), Next::OpenGate);
            }
            assert_eq!(s.on_done(Role::FtpControl, true, at(100 * n as u64 + 5), &mut stats), Next::End);
            let files = &stats.metrics.iter().find(|m| m.0 == "file_s").unwrap().1;
            assert_eq!(files.len(), n);
            assert!(files.iter().all(|&f| (f - 0.05).abs() < 1e-12));
            let sess = &stats.metrics.iter().find(|m| m.0 == "session_s").unwrap().1;
            assert!((sess[0] - (100.0 * n as f64 + 5.0) / 1000.0).abs() < 1e-12);
        }
    }

    /// A browser: every file of a page on its own connection to the visit's server, one at a
    /// time; a think time of at least 1 s after each page; `consecutive_docs` pages per
    /// visit, then a new server; item and page samples from open to done.
    #[test]
    fn a_browser_fetches_pages_file_by_file_and_thinks_between_them() {
        let servers = [NodeId(10), NodeId(11), NodeId(12)];
        let mut choice = Choice::Zipf(Zipf::new(3));
        let mut stats = GenStats::default();
        let (mut b, mut open) =
            Session::browser(0, NodeId(1), &servers, &mut choice, stream(6, Purpose::App, 1), at(0));
        let (mut now, mut pages, mut files, mut visits) = (0u64, 0usize, 0usize, 1usize);
        let mut server = open.to;
        while pages < 300 {
            assert_eq!((open.from, open.port, open.role), (NodeId(1), HTTP_PORT, Role::HttpGet));
            assert_eq!(open.to, server, "a page's files all come from the visit's server");
            assert_eq!(open.script.len(), 2);
            assert!(open.script[0].0 && !open.script[1].0);
            now += 30;
            files += 1;
            match b.on_done(Role::HttpGet, true, at(now), &mut stats) {
                Next::Open(o) => open = o,
                Next::Think(t) => {
                    pages += 1;
                    assert!(t >= at(now) + SimDuration::from_secs(1));
                    now = t.since(SimTime::ZERO).as_ps() / 1_000_000_000;
                    let before = b.server();
                    open = b.on_timer(&servers, &mut choice, t);
                    if open.to != before {
                        visits += 1;
                    }
                    server = open.to;
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        let n = |name| stats.metrics.iter().find(|m| m.0 == name).unwrap().1.len();
        assert_eq!((n("item_s"), n("page_s")), (files, pages));
        // Mah's tables: 2.9 files per page, 4.1 pages per visit (a visit may return to the
        // same server, so visits seen are at most pages / 1).
        let fpp = files as f64 / pages as f64;
        assert!((2.0..4.0).contains(&fpp), "{fpp} files per page");
        assert!(visits >= 30 && visits < pages, "{visits} visits for {pages} pages");
    }
}
