//! Conversation classification: which IP conversation a datagram belongs to, and what kind.
//!
//! Owns: [`PacketHeader`] (the header fields the driver may read), [`ConvKey`] (the
//! conversation key) and [`ConvType`] (the conversation type, with its direction).
//!
//! Source: Mah (1996) §4.3.2 and Fig 4-1. A conversation is identified by the key
//! (source address, destination address, type-of-service, transport protocol, source port,
//! destination port). TCP applications are recognised by their well-known ports: a
//! well-known port in the *destination* field means the packet goes client → server
//! ("up"), in the *source* field server → client ("down"). Audio and video have no
//! well-known ports; INSANE read an RTP-like media-type field instead, which we model as
//! [`Media`], and their direction is "any" (Tab 4-5). The thesis names port 23 (telnet)
//! and 80 (HTTP); 21/20 (FTP control/data), 25 (SMTP) and 119 (NNTP) are the standard
//! assignments (RFC 1700), an inference recorded in the spec digest (§1.5).
//!
//! **Precedence.** When both ports are well known, the destination port decides (the
//! packet is read as client → server). SMTP and NNTP have no direction: the thesis
//! always sent them best effort (Tab 4-5 note), so one type each suffices. A UDP datagram
//! without a media tag, and any TCP segment on no well-known port, is [`ConvType::Other`].

pub use crate::header::{Media, PacketHeader, Proto};
use crate::ids::NodeId;

/// The conversation key: the 6-tuple of §4.3.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConvKey {
    pub src: NodeId,
    pub dst: NodeId,
    pub tos: u8,
    pub proto: Proto,
    pub src_port: u16,
    pub dst_port: u16,
}

/// The conversation types of Tab 4-5 (plus SMTP, NNTP and everything else), each with its
/// direction: "up" is client → server, "down" server → client.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConvType {
    TelnetUp,
    TelnetDown,
    FtpControlUp,
    FtpControlDown,
    FtpDataUp,
    FtpDataDown,
    HttpUp,
    HttpDown,
    Smtp,
    Nntp,
    Audio,
    Video,
    Other,
}

impl ConvKey {
    /// The header fields the key holds (no media tag: keys of UDP media flows classify as
    /// [`ConvType::Other`]).
    pub fn header(&self) -> PacketHeader {
        PacketHeader {
            src: self.src,
            dst: self.dst,
            proto: self.proto,
            src_port: self.src_port,
            dst_port: self.dst_port,
            tos: self.tos,
            media: Media::None,
        }
    }
}

/// Well-known TCP ports [RFC 1700].
pub mod port {
    pub const FTP_DATA: u16 = 20;
    pub const FTP_CONTROL: u16 = 21;
    pub const TELNET: u16 = 23;
    pub const SMTP: u16 = 25;
    pub const HTTP: u16 = 80;
    pub const NNTP: u16 = 119;
}

impl PacketHeader {
    /// The conversation this datagram belongs to.
    #[inline]
    pub fn conv_key(&self) -> ConvKey {
        ConvKey {
            src: self.src,
            dst: self.dst,
            tos: self.tos,
            proto: self.proto,
            src_port: self.src_port,
            dst_port: self.dst_port,
        }
    }

    /// The conversation type (module docs: ports for TCP, the media tag for UDP).
    #[inline]
    pub fn conv_type(&self) -> ConvType {
        match self.proto {
            Proto::Tcp => tcp_type(self.src_port, self.dst_port),
            Proto::Udp => match self.media {
                Media::Audio => ConvType::Audio,
                Media::Video => ConvType::Video,
                Media::None => ConvType::Other,
            },
        }
    }
}

/// Which direction a well-known port puts a packet in.
#[derive(Clone, Copy)]
enum Dir {
    Up,
    Down,
}

/// A TCP segment's type: the destination port first (client → server), then the source.
fn tcp_type(src_port: u16, dst_port: u16) -> ConvType {
    well_known(dst_port, Dir::Up).or_else(|| well_known(src_port, Dir::Down)).unwrap_or(ConvType::Other)
}

fn well_known(p: u16, dir: Dir) -> Option<ConvType> {
    use ConvType::*;
    let (up, down) = match p {
        port::TELNET => (TelnetUp, TelnetDown),
        port::FTP_CONTROL => (FtpControlUp, FtpControlDown),
        port::FTP_DATA => (FtpDataUp, FtpDataDown),
        port::HTTP => (HttpUp, HttpDown),
        port::SMTP => (Smtp, Smtp),
        port::NNTP => (Nntp, Nntp),
        _ => return None,
    };
    Some(match dir {
        Dir::Up => up,
        Dir::Down => down,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLIENT_PORT: u16 = 40_000;

    fn tcp(src_port: u16, dst_port: u16) -> PacketHeader {
        PacketHeader {
            src: NodeId(1),
            dst: NodeId(2),
            proto: Proto::Tcp,
            src_port,
            dst_port,
            tos: 0,
            media: Media::None,
        }
    }

    fn udp(media: Media) -> PacketHeader {
        PacketHeader { proto: Proto::Udp, media, ..tcp(5004, 5004) }
    }

    /// Client → server: the well-known port is the destination.
    fn up(p: u16) -> ConvType {
        tcp(CLIENT_PORT, p).conv_type()
    }

    /// Server → client: the well-known port is the source.
    fn down(p: u16) -> ConvType {
        tcp(p, CLIENT_PORT).conv_type()
    }

    #[test]
    fn telnet_is_port_23_in_both_directions() {
        assert_eq!(up(23), ConvType::TelnetUp);
        assert_eq!(down(23), ConvType::TelnetDown);
    }

    #[test]
    fn ftp_control_is_port_21_in_both_directions() {
        assert_eq!(up(21), ConvType::FtpControlUp);
        assert_eq!(down(21), ConvType::FtpControlDown);
    }

    #[test]
    fn ftp_data_is_port_20_in_both_directions() {
        assert_eq!(up(20), ConvType::FtpDataUp);
        assert_eq!(down(20), ConvType::FtpDataDown);
    }

    #[test]
    fn http_is_port_80_in_both_directions() {
        assert_eq!(up(80), ConvType::HttpUp);
        assert_eq!(down(80), ConvType::HttpDown);
    }

    #[test]
    fn smtp_and_nntp_have_one_type_for_both_directions() {
        assert_eq!(up(25), ConvType::Smtp);
        assert_eq!(down(25), ConvType::Smtp);
        assert_eq!(up(119), ConvType::Nntp);
        assert_eq!(down(119), ConvType::Nntp);
    }

    #[test]
    fn audio_and_video_come_from_the_media_tag_whatever_the_ports() {
        assert_eq!(udp(Media::Audio).conv_type(), ConvType::Audio);
        assert_eq!(udp(Media::Video).conv_type(), ConvType::Video);
        let on_http_port = PacketHeader { src_port: 80, ..udp(Media::Audio) };
        assert_eq!(on_http_port.conv_type(), ConvType::Audio);
    }

    #[test]
    fn anything_else_is_other() {
        assert_eq!(tcp(CLIENT_PORT, CLIENT_PORT + 1).conv_type(), ConvType::Other);
        assert_eq!(udp(Media::None).conv_type(), ConvType::Other);
        assert_eq!(PacketHeader { dst_port: 23, ..udp(Media::None) }.conv_type(), ConvType::Other);
        let tagged_tcp = PacketHeader { media: Media::Video, ..tcp(CLIENT_PORT, 9) };
        assert_eq!(tagged_tcp.conv_type(), ConvType::Other, "media tags are read on UDP only");
    }

    #[test]
    fn destination_port_wins_when_both_are_well_known() {
        assert_eq!(tcp(20, 21).conv_type(), ConvType::FtpControlUp);
    }

    #[test]
    fn conversation_key_is_the_six_tuple() {
        let h = PacketHeader { tos: 0x10, ..tcp(1234, 80) };
        let k = h.conv_key();
        assert_eq!(
            (k.src, k.dst, k.tos, k.proto, k.src_port, k.dst_port),
            (NodeId(1), NodeId(2), 0x10, Proto::Tcp, 1234, 80)
        );
        assert_ne!(k, PacketHeader { tos: 0, ..h }.conv_key(), "the TOS byte is part of the key");
    }
}
