"""DS frame codec against SHOE_PROTOCOL.md §2: the spec's test vectors and every drop rule."""

from __future__ import annotations

import pytest

from firmware_bridge.shoe.codec import (
    MAX_FRAME,
    Frame,
    FrameDecoder,
    crc16,
    crc16_ccitt_false,
    crc16_table,
    encode_frame,
)

# (exact bytes, direction, seq, type, fields) — SHOE_PROTOCOL.md §2, verbatim.
VECTORS = [
    (b"$0,HELLO,1,DS8,SH-0042,2.1.0,7F3A9C01*727D\r\n", "shoe", 0, "HELLO",
     ("1", "DS8", "SH-0042", "2.1.0", "7F3A9C01")),
    (b"$1,LOAD*C12C\r\n", "shoe", 1, "LOAD", ()),
    (b"$2,CARD,7H*39A3\r\n", "shoe", 2, "CARD", ("7H",)),
    (b"$3,CARD,TD,3-0417*80D8\r\n", "shoe", 3, "CARD", ("TD", "3-0417")),
    (b"$4,UNREAD*F1F4\r\n", "shoe", 4, "UNREAD", ()),
    (b"$5,CUT*E90F\r\n", "shoe", 5, "CUT", ()),
    (b"$6,HB,120034*DA1E\r\n", "shoe", 6, "HB", ("120034",)),
    (b"$7,FAULT,JAM*03A7\r\n", "shoe", 7, "FAULT", ("JAM",)),
    (b"$8,EMPTY*3749\r\n", "shoe", 8, "EMPTY", ()),
    (b"$9,OK,5*98B2\r\n", "shoe", 9, "OK", ("5",)),
    (b"$10,STATUS,16,UNLOCKED,57,RED*535C\r\n", "shoe", 10, "STATUS",
     ("16", "UNLOCKED", "57", "RED")),
    (b"$11,ERR,14,UNSUPPORTED*3A17\r\n", "shoe", 11, "ERR", ("14", "UNSUPPORTED")),
    (b"$12,ACK,3*D12A\r\n", "station", 12, "ACK", ("3",)),
    (b"$13,RESEND,4*A98C\r\n", "station", 13, "RESEND", ("4",)),
    (b"$14,LOCK*0B92\r\n", "station", 14, "LOCK", ()),
    (b"$15,LED,RED*46A5\r\n", "station", 15, "LED", ("RED",)),
    (b"$16,STATUS*DE63\r\n", "station", 16, "STATUS", ()),
]


def test_crc_check_value_and_implementations_agree() -> None:
    assert crc16_ccitt_false(b"123456789") == 0x29B1
    assert crc16_table(b"123456789") == 0x29B1
    assert crc16(b"123456789") == 0x29B1
    for data in (b"", b"\x00", b"\xff" * 7, bytes(range(256)), b"2,CARD,7H"):
        assert crc16(data) == crc16_ccitt_false(data) == crc16_table(data)


@pytest.mark.parametrize("raw,direction,seq,type_,fields", VECTORS)
def test_vector_encodes_to_exact_bytes(raw, direction, seq, type_, fields) -> None:
    assert encode_frame(seq, type_, *fields) == raw
    assert Frame(seq, type_, fields).encode() == raw


@pytest.mark.parametrize("raw,direction,seq,type_,fields", VECTORS)
def test_vector_decodes_in_its_direction_only(raw, direction, seq, type_, fields) -> None:
    dec = FrameDecoder(direction)
    assert dec.feed(raw) == [Frame(seq, type_, fields)]
    assert dec.counters["frames"] == 1
    other = FrameDecoder("station" if direction == "shoe" else "shoe")
    if type_ == "STATUS":
        # STATUS exists both ways with different fields: the other side finds it malformed.
        assert other.feed(raw) == []
        assert other.counters["malformed"] == 1
    else:
        assert other.feed(raw) == []
        assert other.counters["unknown_type"] + other.counters["malformed"] == 1


def test_all_vectors_in_one_stream_byte_by_byte() -> None:
    shoe = b"".join(v[0] for v in VECTORS if v[1] == "shoe")
    dec = FrameDecoder("shoe")
    got = []
    for i in range(len(shoe)):
        got += dec.feed(shoe[i : i + 1])
    assert [f.seq for f in got] == list(range(12))


def frame_with_body(body: bytes, crc: int | None = None) -> bytes:
    c = crc16(body) if crc is None else crc
    return b"$" + body + b"*" + f"{c:04X}".encode() + b"\r\n"


@pytest.mark.parametrize(
    "raw,counter",
    [
        (frame_with_body(b"2,CARD,7H", crc=0x1234), "bad_crc"),
        (b"$2,CARD,7H*39a3\r\n", "malformed"),  # lower-case CRC digits
        (b"$2,CARD,7H*39A\r\n", "malformed"),  # three digits
        (b"$2,CARD,7H39A3\r\n", "malformed"),  # no `*`
        (frame_with_body(b"02,CARD,7H"), "malformed"),  # leading zero
        (frame_with_body(b"65536,CARD,7H"), "malformed"),  # seq out of range
        (frame_with_body(b"x,CARD,7H"), "malformed"),
        (frame_with_body(b"2,card,7H"), "malformed"),  # type not upper case
        (frame_with_body(b"2"), "malformed"),  # no type
        (frame_with_body(b"2,BOGUS"), "unknown_type"),
        (frame_with_body(b"2,ACK,3"), "unknown_type"),  # a station type from the shoe
        (frame_with_body(b"2,CARD,7X"), "malformed"),  # not a card
        (frame_with_body(b"2,CARD,10H"), "malformed"),  # wire form is always 2 chars
        (frame_with_body(b"2,CARD,7h"), "malformed"),
        (frame_with_body(b"2,CARD"), "malformed"),
        (frame_with_body(b"2,CARD,7H,"), "malformed"),  # empty code
        (frame_with_body(b"2,LOAD,X"), "malformed"),
        (frame_with_body(b"2,FAULT,FIRE"), "malformed"),
        (frame_with_body(b"2,HB,-5"), "malformed"),
        (frame_with_body(b"2,OK,65536"), "malformed"),
        (frame_with_body(b"2,ERR,5,NOPE"), "malformed"),
        (frame_with_body(b"2,STATUS,5,OPEN,3,RED"), "malformed"),
        (frame_with_body(b"2,HELLO,1,DS8,SH,2.1.0,7F3A9C01"), "malformed"),  # HELLO not seq 0
        (frame_with_body(b"0,LOAD"), "malformed"),  # seq 0 is HELLO's
        (frame_with_body(b"0,HELLO,1,DS8,SH,2.1.0,7F3A9C0"), "malformed"),  # short boot id
        (frame_with_body(b"2,CARD,7H\x01"), "malformed"),  # control byte in the body
        (frame_with_body(b"2,CARD,7H\xe9"), "malformed"),  # not ASCII
    ],
)
def test_bad_frames_are_dropped_and_counted(raw: bytes, counter: str) -> None:
    dec = FrameDecoder("shoe")
    assert dec.feed(raw) == []
    assert dec.counters[counter] == 1
    assert dec.counters["frames"] == 0
    # ...and the decoder is not left confused: the next good frame still decodes.
    assert dec.feed(b"$5,CUT*E90F\r\n") == [Frame(5, "CUT")]


def test_size_limit_is_96_bytes_from_dollar_to_newline() -> None:
    def hb_frame(length: int) -> bytes:
        digits = 1
        while True:
            f = encode_frame(7, "HB", "1" * digits) if len(
                encode_frame(7, "HB", "1" * digits)) <= MAX_FRAME else None
            if f is not None and len(f) == length:
                return f
            if f is None or len(f) > length:
                raise AssertionError("no such frame")
            digits += 1

    exactly = hb_frame(96)
    assert FrameDecoder("shoe").feed(exactly)[0].fields == ("1" * (96 - len(b"$7,HB,*XXXX\r\n")),)
    too_long = exactly.replace(b",HB,", b",HB,1")
    assert len(too_long) == 97
    dec = FrameDecoder("shoe")
    assert dec.feed(too_long + b"$5,CUT*E90F\r\n") == [Frame(5, "CUT")]
    assert dec.counters["too_long"] == 1
    with pytest.raises(ValueError, match="exceeds 96"):
        encode_frame(7, "HB", "1" * 90)


def test_resync_on_dollar_noise_and_optional_cr() -> None:
    dec = FrameDecoder("shoe")
    stream = (
        b"\xff\x00garbage\r\n"  # noise between frames
        b"$2,CARD,7"  # a frame cut short by a new `$`
        b"$2,CARD,7H*39A3\r\n"
        b"\xff"
        b"$5,CUT*E90F\n"  # no `\r`: still a frame
    )
    assert dec.feed(stream) == [Frame(2, "CARD", ("7H",)), Frame(5, "CUT")]
    assert dec.counters["truncated"] == 1
    assert dec.counters["noise_bytes"] == len(b"\xff\x00garbage\r\n") + 1


def test_partial_frame_waits_for_the_rest_in_any_chunking() -> None:
    raw = b"$10,STATUS,16,UNLOCKED,57,RED*535C\r\n"
    for cut in range(1, len(raw)):
        dec = FrameDecoder("shoe")
        assert dec.feed(raw[:cut]) == []
        assert dec.feed(raw[cut:]) == [Frame(10, "STATUS", ("16", "UNLOCKED", "57", "RED"))]


@pytest.mark.parametrize(
    "args,message",
    [
        ((-1, "LOAD"), "outside"),
        ((65536, "LOAD"), "outside"),
        ((1, "load"), "upper-case"),
        ((1, "CARD", "7,H"), "cannot carry"),
        ((1, "CARD", "7*"), "cannot carry"),
        ((1, "CARD", "7$"), "cannot carry"),
        ((1, "CARD", "7\n"), "cannot carry"),
    ],
)
def test_encoder_refuses_what_a_frame_cannot_carry(args, message) -> None:
    with pytest.raises(ValueError, match=message):
        encode_frame(*args)


def test_station_direction_checks_its_own_fields() -> None:
    dec = FrameDecoder("station")
    assert dec.feed(encode_frame(3, "LED", "PINK")) == []
    assert dec.feed(encode_frame(3, "LOCK", "NOW")) == []
    assert dec.feed(encode_frame(3, "ACK", "65536")) == []
    assert dec.counters["malformed"] == 3
    assert dec.feed(encode_frame(3, "UNLOCK")) == [Frame(3, "UNLOCK")]
    with pytest.raises(ValueError):
        FrameDecoder("sideways")
