// TCP dumbbell for the atmsim vs ns-3 benchmark (benches/vs_ns3/README.md).
//
// N bulk TCP senders, each on its own access link to router L; one bottleneck L -> R with
// a drop-tail queue of 16*N packets; one sink host behind R. Every flow has its own
// PacketSink on the sink host (port 5001 + i), so goodput is counted per flow at the
// receiving application. Prints one JSON line of results on stdout.
//
// Model choices (kept in step with the atmsim scenario that run.py writes):
//   * point-to-point links; the traffic-control queue discs that Ipv4AddressHelper installs
//     are removed from every device, so each device's own DropTail queue is the only queue;
//     the bottleneck device (both ends) holds 16*N packets, the others ns-3's default 100;
//     a packet that finds the bottleneck queue full is dropped by the traffic-control layer
//     (the device stops its queue when full), so drops are counted from both the queue's
//     "Drop" and the layer's "TcDrop" traces;
//   * TCP: ns3::TcpNewReno congestion control with TcpClassicRecovery (RFC 6582 style
//     fast recovery instead of ns-3's default PRR), no SACK, no timestamps, no window
//     scaling (so every data segment is a 552-byte IP packet), initial cwnd 1 segment
//     (4.4BSD), delayed ACKs (ns-3's default: every 2nd segment or 200 ms);
//   * MSS 512 bytes, send and receive buffers 8192 bytes (the window).
//
// Usage: dumbbell --n=5 --bottleneckMbps=1.5 --duration=180 --seed=1
//
// The defaults are the speed benchmark's (run.py). The TCP-variant comparison (variants.py)
// adds options for the congestion control and its features (--cc, --recovery, --sack,
// --timestamps, --windowScaling, --limitedTransmit, --nagle, --hystart, --cubicFriendliness,
// --fastConvergence), a total queue size (--queuePackets), a warm-up (--warmup: goodput is
// counted from then on), and --trace=FILE: every --sampleMs each flow's cwnd, inflated cwnd
// and ssthresh as CSV (time_s,flow,cwnd_bytes,cwnd_inflated_bytes,ssthresh_bytes, then
// bytes_in_flight: the socket's own estimate of the pipe, and outstanding_bytes: highest
// sequence sent - highest cumulative ACK, what is really unacknowledged). The JSON
// line then also has per-flow retransmitted segments, fast recoveries and timeouts (from
// the sockets' Retransmission and CongState traces) and each flow's exact time-weighted mean
// cwnd over [warmup, duration] (from the CongestionWindow trace).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

uint64_t g_queueDrops = 0; // dropped by the bottleneck device's DropTail queue
uint64_t g_tcDrops = 0;    // refused by the traffic-control layer: device queue full (stopped)
Ipv4Address g_sinkAddress;

// Per-flow TCP observations (only when traced: the TCP-variant comparison).
struct FlowTrace
{
    uint32_t cwnd = 0;         // CongestionWindow [bytes]
    uint32_t cwndInflated = 0; // CongestionWindowInflated [bytes] (classic recovery inflates)
    uint32_t ssthresh = 0;     // SlowStartThreshold [bytes]
    uint32_t bytesInFlight = 0; // BytesInFlight: the socket's estimate (RFC 6675 pipe) [bytes]
    uint32_t highTx = 0;        // HighestSequence: the highest sequence sent (snd_max)
    uint32_t highAck = 0;       // HighestRxAck: the highest cumulative ACK (snd_una)
    uint64_t retransmissions = 0;
    uint64_t retransmissionsAtWarmup = 0;
    uint64_t recoveries = 0; // entries into CA_RECOVERY (fast retransmit / SACK recovery)
    uint64_t timeouts = 0;   // entries into CA_LOSS (retransmission timeouts)
    double integral = 0;      // [bytes * s]
    double lastChange = 0;    // [s]
};

std::vector<FlowTrace> g_flows;
double g_warmup = 0;
std::ofstream g_trace;
double g_sampleS = 0.01;
double g_duration = 0;

void
AccumulateCwnd(FlowTrace& f)
{
    double now = Simulator::Now().GetSeconds();
    double from = std::max(f.lastChange, g_warmup);
    if (now > from)
    {
        f.integral += static_cast<double>(f.cwnd) * (now - from);
    }
    f.lastChange = now;
}

void
OnCwnd(uint32_t i, uint32_t, uint32_t v)
{
    AccumulateCwnd(g_flows[i]);
    g_flows[i].cwnd = v;
}

void
OnCwndInflated(uint32_t i, uint32_t, uint32_t v)
{
    g_flows[i].cwndInflated = v;
}

void
OnSsthresh(uint32_t i, uint32_t, uint32_t v)
{
    g_flows[i].ssthresh = v;
}

void
OnBytesInFlight(uint32_t i, uint32_t, uint32_t v)
{
    g_flows[i].bytesInFlight = v;
}

void
OnHighTx(uint32_t i, SequenceNumber32, SequenceNumber32 v)
{
    g_flows[i].highTx = v.GetValue();
}

void
OnHighAck(uint32_t i, SequenceNumber32, SequenceNumber32 v)
{
    g_flows[i].highAck = v.GetValue();
}

void
OnCongState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t s)
{
    if (s == TcpSocketState::CA_RECOVERY)
    {
        ++g_flows[i].recoveries;
    }
    else if (s == TcpSocketState::CA_LOSS)
    {
        ++g_flows[i].timeouts;
    }
}

void
OnRetransmission(uint32_t i,
                 Ptr<const Packet>,
                 const TcpHeader&,
                 const Address&,
                 const Address&,
                 Ptr<const TcpSocketBase>)
{
    ++g_flows[i].retransmissions;
}

// Connect flow i's traces to its sender's socket (created when its application starts).
void
ConnectFlow(uint32_t i, Ptr<BulkSendApplication> app)
{
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(app->GetSocket());
    NS_ABORT_MSG_UNLESS(s, "flow " << i << ": no TCP socket yet");
    bool ok = s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
    ok = ok && s->TraceConnectWithoutContext("CongestionWindowInflated",
                                             MakeBoundCallback(&OnCwndInflated, i));
    ok = ok && s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSsthresh, i));
    ok = ok && s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, i));
    ok = ok && s->TraceConnectWithoutContext("Retransmission",
                                             MakeBoundCallback(&OnRetransmission, i));
    ok = ok && s->TraceConnectWithoutContext("BytesInFlight",
                                             MakeBoundCallback(&OnBytesInFlight, i));
    ok = ok && s->TraceConnectWithoutContext("HighestSequence", MakeBoundCallback(&OnHighTx, i));
    ok = ok && s->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&OnHighAck, i));
    NS_ABORT_MSG_UNLESS(ok, "cannot connect the TCP traces of flow " << i);
}

// The periodic probe: one CSV row per flow, at t = k * sampleMs (as atmsim's probes).
void
Sample()
{
    double now = Simulator::Now().GetSeconds();
    for (uint32_t i = 0; i < g_flows.size(); ++i)
    {
        const FlowTrace& f = g_flows[i];
        g_trace << now << ',' << i << ',' << f.cwnd << ',' << f.cwndInflated << ',' << f.ssthresh
                << ',' << f.bytesInFlight << ',' << f.highTx - f.highAck << '\n';
    }
    if (now + g_sampleS <= g_duration + 1e-9)
    {
        Simulator::Schedule(Seconds(g_sampleS), &Sample);
    }
}

void
CountQueueDrop(Ptr<const Packet>)
{
    ++g_queueDrops;
}

// Without a queue disc, the traffic-control layer hands a packet straight to the device
// unless the device has stopped its queue because it is full; then the layer drops the
// packet itself ("TcDrop") and the DropTail queue never sees it. At router L only the
// data packets to the sink go out over the bottleneck, so those are the bottleneck's drops.
void
CountTcDrop(Ptr<const Packet> p)
{
    Ipv4Header ip;
    if (p->PeekHeader(ip) && ip.GetDestination() == g_sinkAddress)
    {
        ++g_tcDrops;
    }
}

std::string
RateString(double mbps)
{
    std::ostringstream s;
    s << std::setprecision(12) << mbps * 1e6 << "bps";
    return s.str();
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t n = 5;
    double bottleneckMbps = 1.5;
    double accessMbps = 1.5;
    double sinkMbps = 0; // 0: the bottleneck's rate
    double bottleneckDelayMs = 22.5;
    double duration = 180.0;
    uint32_t seed = 1;
    uint32_t mss = 512;
    uint32_t window = 8192;
    uint32_t bufferPerFlow = 16;
    uint32_t initialCwnd = 1;

    CommandLine cmd(__FILE__);
    cmd.AddValue("n", "number of senders", n);
    cmd.AddValue("bottleneckMbps", "bottleneck rate [Mb/s]", bottleneckMbps);
    cmd.AddValue("accessMbps", "rate of each sender's access link [Mb/s]", accessMbps);
    cmd.AddValue("sinkMbps", "rate of the sink's link [Mb/s] (0: the bottleneck's)", sinkMbps);
    cmd.AddValue("delayMs", "one-way propagation delay of the bottleneck [ms]", bottleneckDelayMs);
    cmd.AddValue("duration", "simulated time [s]", duration);
    cmd.AddValue("seed", "RNG run number", seed);
    cmd.AddValue("mss", "TCP segment size [bytes]", mss);
    cmd.AddValue("window", "TCP send and receive buffers [bytes]", window);
    cmd.AddValue("bufferPerFlow", "bottleneck queue per sender [packets]", bufferPerFlow);
    cmd.AddValue("initialCwnd", "initial congestion window [segments]", initialCwnd);
    // The TCP-variant comparison (variants.py); the defaults keep the speed benchmark's TCP.
    std::string cc = "newreno";
    std::string recovery = "classic";
    bool sack = false;
    bool timestamps = false;
    bool windowScaling = false;
    bool limitedTransmit = true; // ns-3's default
    bool nagle = false;          // ns-3's default: TcpNoDelay
    bool hystart = true;         // ns-3's TcpCubic default
    bool cubicFriendliness = true;
    bool fastConvergence = true;
    uint32_t queuePackets = 0; // 0: bufferPerFlow * n
    double warmup = 0;
    std::string trace;
    double sampleMs = 10;
    cmd.AddValue("cc", "congestion control: newreno (ns3::TcpNewReno) or cubic (ns3::TcpCubic)", cc);
    cmd.AddValue("recovery", "loss recovery: classic (ns3::TcpClassicRecovery) or prr", recovery);
    cmd.AddValue("sack", "SACK (RFC 2018 / 6675)", sack);
    cmd.AddValue("timestamps", "RFC 7323 timestamps", timestamps);
    cmd.AddValue("windowScaling", "RFC 7323 window scaling", windowScaling);
    cmd.AddValue("limitedTransmit", "RFC 3042 limited transmit", limitedTransmit);
    cmd.AddValue("nagle", "Nagle's algorithm (TcpNoDelay = !nagle)", nagle);
    cmd.AddValue("hystart", "TcpCubic::HyStart", hystart);
    cmd.AddValue("cubicFriendliness", "TcpCubic::TcpFriendliness", cubicFriendliness);
    cmd.AddValue("fastConvergence", "TcpCubic::FastConvergence", fastConvergence);
    cmd.AddValue("queuePackets", "bottleneck queue [packets] (0: bufferPerFlow * n)", queuePackets);
    cmd.AddValue("warmup", "goodput and mean cwnd are measured over [warmup, duration] [s]", warmup);
    cmd.AddValue("trace", "write each flow's cwnd every sampleMs to this CSV file", trace);
    cmd.AddValue("sampleMs", "period of the cwnd samples [ms]", sampleMs);
    cmd.Parse(argc, argv);
    if (sinkMbps <= 0)
    {
        sinkMbps = bottleneckMbps;
    }
    if (queuePackets == 0)
    {
        queuePackets = bufferPerFlow * n;
    }
    NS_ABORT_MSG_UNLESS(cc == "newreno" || cc == "cubic", "--cc: newreno or cubic");
    NS_ABORT_MSG_UNLESS(recovery == "classic" || recovery == "prr", "--recovery: classic or prr");
    NS_ABORT_MSG_UNLESS(warmup >= 0 && warmup < duration, "--warmup: in [0, duration)");
    g_warmup = warmup;
    g_duration = duration;
    g_sampleS = sampleMs / 1000.0;

    auto tSetup = std::chrono::steady_clock::now();

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(cc == "cubic" ? TcpCubic::GetTypeId() : TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(recovery == "prr" ? TcpPrrRecovery::GetTypeId()
                                                     : TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(window));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(window));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initialCwnd));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(!nagle));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(timestamps));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(windowScaling));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(limitedTransmit));
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(hystart));
    Config::SetDefault("ns3::TcpCubic::TcpFriendliness", BooleanValue(cubicFriendliness));
    Config::SetDefault("ns3::TcpCubic::FastConvergence", BooleanValue(fastConvergence));

    NodeContainer senders;
    senders.Create(n);
    NodeContainer routers;
    routers.Create(2);
    Ptr<Node> left = routers.Get(0);
    Ptr<Node> right = routers.Get(1);
    Ptr<Node> sink = CreateObject<Node>();

    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(RateString(accessMbps)));
    access.SetChannelAttribute("Delay", TimeValue(Seconds(0)));

    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(RateString(bottleneckMbps)));
    bottleneck.SetChannelAttribute("Delay", TimeValue(MilliSeconds(bottleneckDelayMs)));
    std::ostringstream qsize;
    qsize << queuePackets << "p";
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize(qsize.str())));

    PointToPointHelper sinkLink;
    sinkLink.SetDeviceAttribute("DataRate", StringValue(RateString(sinkMbps)));
    sinkLink.SetChannelAttribute("Delay", TimeValue(Seconds(0)));

    NetDeviceContainer all;
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");

    NetDeviceContainer core = bottleneck.Install(left, right);
    addr.Assign(core);
    addr.NewNetwork();
    all.Add(core);

    NetDeviceContainer sinkDevs = sinkLink.Install(right, sink);
    Ipv4InterfaceContainer sinkIf = addr.Assign(sinkDevs);
    addr.NewNetwork();
    all.Add(sinkDevs);
    Ipv4Address sinkAddress = sinkIf.GetAddress(1);
    g_sinkAddress = sinkAddress;

    for (uint32_t i = 0; i < n; ++i)
    {
        NetDeviceContainer d = access.Install(senders.Get(i), left);
        addr.Assign(d);
        addr.NewNetwork();
        all.Add(d);
    }

    // No queue disc anywhere: the devices' DropTail queues are the only queues.
    TrafficControlHelper tch;
    tch.Uninstall(all);

    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    Ptr<PointToPointNetDevice> bottleneckDev = DynamicCast<PointToPointNetDevice>(core.Get(0));
    bool traced =
        bottleneckDev->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&CountQueueDrop));
    traced = traced && left->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
                           "TcDrop",
                           MakeCallback(&CountTcDrop));
    NS_ABORT_MSG_UNLESS(traced, "cannot connect the drop traces");

    bool traced_tcp = !trace.empty();
    if (traced_tcp)
    {
        g_flows.resize(n);
        g_trace.open(trace);
        NS_ABORT_MSG_UNLESS(g_trace, "cannot write " << trace);
        g_trace << std::setprecision(10) << "time_s,flow,cwnd_bytes,cwnd_inflated_bytes,ssthresh_bytes,bytes_in_flight,"
                   "outstanding_bytes\n";
        Simulator::Schedule(Seconds(0), &Sample);
    }
    std::vector<Ptr<PacketSink>> sinks;
    std::vector<uint64_t> rxAtWarmup(n, 0);
    for (uint32_t i = 0; i < n; ++i)
    {
        uint16_t port = 5001 + i;
        PacketSinkHelper sh("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sh.Install(sink);
        sa.Start(Seconds(0));
        sa.Stop(Seconds(duration));
        sinks.push_back(DynamicCast<PacketSink>(sa.Get(0)));

        BulkSendHelper bh("ns3::TcpSocketFactory", InetSocketAddress(sinkAddress, port));
        bh.SetAttribute("SendSize", UintegerValue(mss));
        bh.SetAttribute("MaxBytes", UintegerValue(0));
        ApplicationContainer ba = bh.Install(senders.Get(i));
        ba.Start(Seconds(0));
        ba.Stop(Seconds(duration));
        if (traced_tcp)
        {
            // The socket exists once the application has started (at t = 0); the SYN is
            // answered a round trip later, so nothing is missed.
            Simulator::Schedule(NanoSeconds(1),
                                &ConnectFlow,
                                i,
                                DynamicCast<BulkSendApplication>(ba.Get(0)));
        }
    }
    if (warmup > 0)
    {
        Simulator::Schedule(Seconds(warmup), [&sinks, &rxAtWarmup]() {
            for (size_t i = 0; i < sinks.size(); ++i)
            {
                rxAtWarmup[i] = sinks[i]->GetTotalRx();
            }
            for (auto& f : g_flows)
            {
                f.retransmissionsAtWarmup = f.retransmissions;
            }
        });
    }

    Simulator::Stop(Seconds(duration));
    auto tRun = std::chrono::steady_clock::now();
    Simulator::Run();
    auto tEnd = std::chrono::steady_clock::now();
    uint64_t events = Simulator::GetEventCount();

    std::vector<double> goodput;
    double sum = 0;
    double sumSq = 0;
    for (size_t i = 0; i < sinks.size(); ++i)
    {
        double g = (sinks[i]->GetTotalRx() - rxAtWarmup[i]) * 8.0 / (duration - warmup);
        goodput.push_back(g);
        sum += g;
        sumSq += g * g;
    }
    double jain = sumSq > 0 ? sum * sum / (n * sumSq) : 0.0;

    std::ostringstream out;
    out << std::setprecision(10);
    out << "{\"simulator\":\"ns-3\",\"level\":\"packet\"";
    out << ",\"n\":" << n << ",\"bottleneck_bps\":" << bottleneckMbps * 1e6
        << ",\"duration_s\":" << duration << ",\"seed\":" << seed
        << ",\"queue_packets\":" << queuePackets;
    out << ",\"setup_wall_s\":" << std::chrono::duration<double>(tRun - tSetup).count();
    out << ",\"run_wall_s\":" << std::chrono::duration<double>(tEnd - tRun).count();
    out << ",\"events\":" << events;
    out << ",\"aggregate_goodput_bps\":" << sum << ",\"jain\":" << jain;
    out << ",\"drops_bottleneck_packets\":" << g_queueDrops + g_tcDrops
        << ",\"drops_queue\":" << g_queueDrops << ",\"drops_tc_layer\":" << g_tcDrops;
    out << ",\"goodput_bps\":[";
    for (uint32_t i = 0; i < n; ++i)
    {
        out << (i ? "," : "") << goodput[i];
    }
    out << "]";
    if (traced_tcp)
    {
        auto list = [&out](const char* name, auto get) {
            out << ",\"" << name << "\":[";
            for (uint32_t i = 0; i < g_flows.size(); ++i)
            {
                out << (i ? "," : "") << get(g_flows[i]);
            }
            out << "]";
        };
        for (auto& f : g_flows)
        {
            AccumulateCwnd(f); // up to the end of the run
        }
        out << ",\"cc\":\"" << cc << "\",\"recovery\":\"" << recovery << "\",\"sack\":" << sack
            << ",\"timestamps\":" << timestamps << ",\"hystart\":" << hystart
            << ",\"cubic_friendliness\":" << cubicFriendliness << ",\"warmup_s\":" << warmup
            << ",\"mss\":" << mss;
        list("retransmissions", [](const FlowTrace& f) { return f.retransmissions; });
        list("retransmissions_after_warmup",
             [](const FlowTrace& f) { return f.retransmissions - f.retransmissionsAtWarmup; });
        list("recoveries", [](const FlowTrace& f) { return f.recoveries; });
        list("timeouts", [](const FlowTrace& f) { return f.timeouts; });
        list("mean_cwnd_bytes_exact", [duration, warmup](const FlowTrace& f) {
            return f.integral / (duration - warmup);
        });
        g_trace.close();
    }
    out << "}";
    std::cout << out.str() << std::endl;

    Simulator::Destroy();
    return 0;
}
