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

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cmath>
#include <cstdint>
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
    cmd.Parse(argc, argv);
    if (sinkMbps <= 0)
    {
        sinkMbps = bottleneckMbps;
    }

    auto tSetup = std::chrono::steady_clock::now();

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(window));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(window));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initialCwnd));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(false));

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
    qsize << bufferPerFlow * n << "p";
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

    std::vector<Ptr<PacketSink>> sinks;
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
    }

    Simulator::Stop(Seconds(duration));
    auto tRun = std::chrono::steady_clock::now();
    Simulator::Run();
    auto tEnd = std::chrono::steady_clock::now();
    uint64_t events = Simulator::GetEventCount();

    std::vector<double> goodput;
    double sum = 0;
    double sumSq = 0;
    for (auto& s : sinks)
    {
        double g = s->GetTotalRx() * 8.0 / duration;
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
        << ",\"queue_packets\":" << bufferPerFlow * n;
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
    out << "]}";
    std::cout << out.str() << std::endl;

    Simulator::Destroy();
    return 0;
}
