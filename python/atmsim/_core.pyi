"""Type stub for the compiled extension ``atmsim._core`` (crates/atmsim-py).

Errors are raised as ``atmsim.errors.ScenarioError`` (codes "parse", "invalid") or
``atmsim.errors.SimulationError`` (code "internal").

The summary's TypedDicts mirror the core's structs (crates/atmsim-core/src/summary/), one
per struct under the same name; ``SUMMARY_SECTIONS`` gives each struct's fields as the core
declares them, and tests/test_core.py fails when the two differ. ``NotRequired`` keys are
left out of the JSON when absent; ``X | None`` ones are ``null``. The classes are declared
leaves first, so that the stub also loads as a module (the test reads it so).
"""

from array import array
from collections.abc import Callable
from enum import StrEnum
from typing import Literal, NotRequired, TypedDict

__version__: str

# ----- names declared once in the core ------------------------------------------------

class Metric(StrEnum):
    """The time-series metrics (crates/atmsim-core/src/measure/metric.rs): each member is its
    name, ``Metric.CWND_BYTES == "cwnd_bytes"``, as in the series' ``metric`` column."""

    CWND_BYTES = "cwnd_bytes"  # conn: congestion window [bytes]
    SSTHRESH_BYTES = "ssthresh_bytes"  # conn: slow-start threshold [bytes]
    GOODPUT_BPS = "goodput_bps"  # conn: delivered over the last sample interval [b/s]
    REXMT_SEGS = "rexmt_segs"  # conn: segments retransmitted so far
    SEQ_BYTES = "seq_bytes"  # conn: sequence space released by TCP so far [bytes]
    QUEUE_CELLS = "queue_cells"  # port: queue [cells]
    DROPS_CELLS = "drops_cells"  # port: cells dropped so far
    FRAMES_DISCARDED = "frames_discarded"  # host: corrupt frames discarded so far
    ACR_BPS = "acr_bps"  # abr: allowed cell rate [b/s], at each change
    IP_QUEUE_DATA = "ip_queue_data"  # abr: IP queue [bytes], at each change
    BACKLOG_DATA = "backlog_data"  # abr: backlog [bytes], at each change

class Entity(StrEnum):
    """The kinds of entity a series samples (crates/atmsim-core/src/measure/metric.rs): the
    prefix of an entity's name in the series' ``entity`` column, ``"conn:ttcp"``."""

    CONN = "conn"  # a [[tcp]] connection
    PORT = "port"  # an output port
    HOST = "host"  # a host or router
    ABR = "abr"  # an ABR end system, "<vc>:<node>"

#: Each metric's entity kind (``Metric`` → ``Entity``).
METRIC_ENTITIES: dict[str, str]

#: ``ipoa.mux`` values: conv, app, router, type.
MUX_POLICIES: tuple[str, ...]
#: ``ipoa.vc`` values: pvc, svc, svccache.
VC_POLICIES: tuple[str, ...]
#: ``scheduler`` values of switches, hosts and routers: fifo, round_robin, static_priority, ...
SCHEDULERS: tuple[str, ...]
#: ``variant`` values of ``[[tcp]]`` and ``[[traffic]]``: tahoe, reno, newreno, cubic.
TCP_VARIANTS: tuple[str, ...]
#: Mah's 25 QoS policies (``ipoa.qos``): noqos, then sp-, wc-, nwc- with each application.
QOS_POLICIES: tuple[str, ...]
#: The 103 configurations ``<qos>-<mux>-<vc>`` of Mah's study, in the study's order: the seven
#: best-effort ones, then each QoS policy in the four setups app-svc … conv-svccache.
MAH_CONFIGURATIONS: tuple[str, ...]
#: Per summary struct (the TypedDicts below): (required keys, optional keys).
SUMMARY_SECTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]

# ----- the summary: connections -------------------------------------------------------

class Connection(TypedDict):
    name: str
    client: str
    server: str
    goodput_bps: float
    bytes_written: int
    bytes_read: int
    finished_at_s: float | None
    mss_bytes: int
    segs_sent: int
    data_segs_sent: int
    bytes_sent: int
    rexmt_segs: int
    rexmt_bytes: int
    timeouts: int
    fast_retransmits: int
    dup_acks_rcvd: int
    acks_sent_by_receiver: int
    dup_bytes_rcvd: int
    ooo_segs_rcvd: int
    cwnd_bytes: int
    ssthresh_bytes: int
    srtt_s: float | None
    rtt_samples: int
    state: str
    offered_bps: NotRequired[float]  # bulk transfers only, as the next two
    efficiency: NotRequired[float | None]  # None: nothing sent in the window
    rexmt_per_s: NotRequired[float]
    app: str
    stale_segments: int
    bytes_client_to_server: int
    bytes_server_to_client: int
    conversations_started: NotRequired[int]  # tcplib conversations only, to unexpected_bytes
    conversations_completed: NotRequired[int]
    conversations_aborted: NotRequired[int]
    connections_opened: NotRequired[int]
    app_bytes_c2s_total: NotRequired[int]
    app_bytes_s2c_total: NotRequired[int]
    c2s_bytes_in_complete_msgs: NotRequired[int]
    unexpected_bytes: NotRequired[int]
    echo_delay_samples: NotRequired[int]  # TELNET only, to the end
    echo_delay_mean_s: NotRequired[float | None]
    echo_delay_std_s: NotRequired[float | None]
    echo_delay_median_s: NotRequired[float | None]
    echo_delay_p90_s: NotRequired[float | None]

# ----- the cell layer -----------------------------------------------------------------

class Source(TypedDict):
    name: str
    kind: Literal["greedy", "poisson", "onoff"]
    goodput_bps: float
    offered_cell_bps: float | None  # None for a greedy source
    sent_cell_bps: float
    cells_sent: int
    frames_sent: int
    frames_rcvd: int

class Port(TypedDict):
    name: str
    rate_bps: float
    buffer_cells: int | None  # None: unlimited
    cells_in: int
    cells_tx: int
    drop_tail: int
    drop_ppd: int
    drop_epd: int
    drop_host_queue: int
    drop_clp1: int
    drop_ctrl: int
    ctrl_cells_in: int
    max_ctrl_queue_cells: int
    drops: int
    frames_refused: int
    max_queue_cells: int
    mean_queue_cells: float
    utilization: float
    drop_regulator: NotRequired[int]  # static-priority and RCSP ports only

class Shaper(TypedDict):
    name: str
    kind: str
    rate_bps: float
    t_s: float
    tau_s: float
    cells_shaped: int
    cells_held: int
    max_queue_cells: int
    mean_delay_s: float
    nonconforming_releases: int
    dropped: int
    buffer_cells: int | None
    frames_refused: int
    cells_refused: int

class Policer(TypedDict):
    name: str
    rate_bps: float
    action: Literal["tag", "drop"]
    t_s: float
    tau_s: float
    cells_in: int
    tagged: int
    dropped: int

# ----- the internetwork ---------------------------------------------------------------

class Ipoa(TypedDict):
    mux: str  # one of MUX_POLICIES
    vc: str  # one of VC_POLICIES
    setups_requested: int
    cache_hits: int
    setups_completed: int
    setups_failed: int
    teardowns: int
    datagrams_queued: int
    datagrams_dropped: int
    vcs_in_use: int
    max_vcs_in_use: int
    peak_setups_per_s: int
    hit_rate: float | None
    qos: NotRequired[str]  # under a QoS policy other than noqos only, to the end
    guaranteed_requested: NotRequired[int]
    guaranteed_refused: NotRequired[int]
    guaranteed_failure_rate: NotRequired[float | None]
    guaranteed_hits: NotRequired[int]
    guaranteed_failure_rate_per_vc_request: NotRequired[float | None]

class Host(TypedDict):
    name: str
    router: bool
    frames_rcvd: int
    frames_corrupt: int
    cpu_utilization: float | None  # None (as the next three) without a modelled CPU
    cpu_rx_segments: int | None
    cpu_tx_segments: int | None
    cpu_max_queue: int | None
    forwarded: int
    no_route: int
    no_socket: int
    ipoa: NotRequired[Ipoa]  # nodes with an ATM interface only

class Line(TypedDict):
    name: str
    kind: Literal["serial", "lan"]
    rate_bps: int
    sent: int
    bytes_sent: int
    dropped: int
    utilization: float
    queued_at_end: int

# "from" is a keyword: the functional form.
UdpFlow = TypedDict(
    "UdpFlow",
    {
        "name": str,
        "from": str,
        "to": str,
        "sent": int,
        "delivered": int,
        "undelivered": int,
        "loss_rate": float | None,
        "late": int,
        "delay_mean_s": float | None,
        "delay_max_s": float | None,
        "bytes_delivered": int,
    },
)

# ----- signalling, traffic, applications ----------------------------------------------

class SignallingMessages(TypedDict):
    sent: int
    delivered: int
    lost: int
    in_flight: int
    cells: int
    balanced: bool

class Signalling(TypedDict):
    controllers: int
    setups_requested: int
    setups_connected: int
    setups_failed: dict[str, int]  # per reject reason
    setups_refused: dict[str, int]
    releases: int
    messages_processed: int
    stale_messages: int
    max_processing_queue: int
    retransmissions: int
    retransmission_timeouts: int
    calls_held: int
    messages: SignallingMessages

class Generator(TypedDict):
    name: str
    group: str
    started: int
    completed: int
    aborted: int
    skipped: int
    open_at_end: int
    max_open: int
    duration_mean_s: float | None
    duration_median_s: float | None
    duration_p90_s: float | None

class SampleStats(TypedDict):
    n: int
    mean: float | None
    median: float | None
    p90: float | None

class Media(TypedDict):
    sent: int
    delivered: int
    lost: int
    in_flight_at_end: int
    late: int
    loss_rate: float | None
    overdue_rate: float | None

class Application(TypedDict):
    app: str
    generators: int
    started: int
    completed: int
    aborted: int
    metrics: dict[str, SampleStats]  # per metric: connect_s, response_s, file_s, ...
    media: NotRequired[Media]  # audio and video only

# ----- ABR ----------------------------------------------------------------------------

AbrEnd = TypedDict(
    "AbrEnd",
    {
        "name": str,
        "vc": str,
        "from": str,
        "to": str,
        "pcr_bps": float,
        "icr_bps": float,
        "acr_bps": float,
        "acr_last_change_s": float,
        "data_cells": int,
        "forward_rm": int,
        "out_of_rate_rm": int,
        "backward_rm_sent": int,
        "backward_rm_overwritten": int,
        "backward_rm_received": int,
        "turned_around": int,
        "adtf_resets": int,
        "crm_cuts": int,
        "datagrams_in": int,
        "acks_diverted": int,
        "refused": int,
        "max_ip_queue_data": int,
        "max_ip_queue_packets": int,
        "max_backlog_data": int,
        "cells_waiting": int,
    },
)

class ErAllocator(TypedDict):
    port: str
    algorithm: str
    advertised_bps: float

class RmCells(TypedDict):
    sent: int
    delivered: int
    dropped: int
    in_flight: int

class Abr(TypedDict):
    ends: list[AbrEnd]
    allocators: list[ErAllocator]
    rm_cells: RmCells

# ----- ledgers and the run ------------------------------------------------------------

class CellLedger(TypedDict):
    injected: int
    delivered: int
    dropped_tail: int
    dropped_ppd: int
    dropped_epd: int
    dropped_no_route: int
    dropped_clp1: int
    dropped_police: int
    dropped_reshape: int
    dropped_ctrl: int
    in_flight: int
    in_reassembly: int
    refused_at_host: int
    balanced: bool
    dropped_regulator: NotRequired[int]  # when some port is static-priority or RCSP

class FrameLedger(TypedDict):
    sent: int
    delivered: int
    discarded: int
    lost: int
    in_flight: int
    balanced: bool

class DatagramLedger(TypedDict):
    sent: int
    delivered: int
    refused_at_adapter: int
    lost_in_fabric: int
    no_route: int
    dropped_at_line: int
    no_vc: int
    in_flight: int
    balanced: bool

class Conservation(TypedDict):
    cells: CellLedger
    frames: FrameLedger
    datagrams: DatagramLedger

class ConnectionPool(TypedDict):
    slots: int
    free: int

class CaptureCounts(TypedDict):
    name: str
    host: str
    snaplen_bytes: int
    packets: int
    packets_out: int
    packets_in: int

class RunStats(TypedDict):
    events: int
    heap_events: int
    cell_hops: int
    wall_s: float
    events_per_s: float
    cell_hops_per_s: float

class Summary(TypedDict):
    scenario: NotRequired[str]  # always there from run(); absent from the core's test summaries
    seed: NotRequired[int]
    duration_s: float
    warmup_s: float
    batching: bool
    tie_order: NotRequired[Literal["lifo", "random"]]  # only when not the default (fifo)
    connections: list[Connection]
    sources: list[Source]
    ports: list[Port]
    shapers: list[Shaper]
    policers: list[Policer]
    hosts: list[Host]
    lines: list[Line]
    udp: list[UdpFlow]
    signalling: Signalling | None  # None without a signalling plane
    traffic: list[Generator]
    applications: NotRequired[dict[str, Application]]  # per [[traffic]] entry, when there are any
    abr: Abr
    connection_pool: ConnectionPool
    captures: list[CaptureCounts]
    conservation: Conservation
    run: RunStats

# ----- what run() returns --------------------------------------------------------------

class SeriesColumns(TypedDict):
    time_s: array  # array("d")
    entity: array  # array("i"): codes into entity_names
    entity_names: list[str]  # sorted
    metric: array  # array("i"): codes into metric_names
    metric_names: list[str]  # sorted; each a Metric
    value: array  # array("d")

class CaptureFile(TypedDict):
    name: str  # the [[capture]]'s name (default: its host's)
    host: str
    pcap: bytes  # a complete pcap file (nanosecond timestamps, LINKTYPE_RAW)

class RunResult(TypedDict):
    summary: Summary
    series: SeriesColumns
    captures: list[CaptureFile]

def entity_name(kind: str, name: str) -> str:
    """The series' name of the entity of kind ``kind`` (an ``Entity``) named ``name``:
    ``entity_name(Entity.CONN, "ttcp") == "conn:ttcp"``; ``ValueError`` for another kind."""

def validate(
    text: str,
    fmt: Literal["toml", "json"] = "toml",
    origin: str = "<string>",
) -> None: ...
def run(
    text: str,
    fmt: Literal["toml", "json"] = "toml",
    origin: str = "<string>",
    *,
    seed: int | None = None,
    batching: bool | None = None,
    progress: Callable[[float], object] | None = None,
) -> RunResult: ...
