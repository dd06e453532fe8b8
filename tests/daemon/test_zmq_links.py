"""ZmqLinks: which routing id left, in every order the monitor's events and the messages
can reach the event loop."""

from __future__ import annotations

from jacquetd.daemon.zmq_links import ZmqLinks


def test_a_disconnect_names_the_peer_of_that_connection() -> None:
    links = ZmqLinks()
    links.accepted(7)
    links.message(7, b"A")
    links.message(7, b"A")
    assert links.disconnected(7) == b"A"
    assert len(links) == 0


def test_a_connection_that_sent_nothing_names_nobody() -> None:
    links = ZmqLinks()
    links.accepted(7)
    assert links.disconnected(7) is None
    assert links.disconnected(7) is None  # an event for nothing recorded


def test_the_next_connection_on_a_reused_descriptor_is_not_taken_for_the_one_that_left() -> None:
    links = ZmqLinks()
    links.accepted(7)
    links.message(7, b"A")
    # A leaves and B takes descriptor 7; B's message is read before both events
    links.message(7, b"B")
    assert links.disconnected(7) == b"A"
    links.accepted(7)  # B's, confirming the entry its message opened
    assert len(links) == 1
    assert links.disconnected(7) == b"B"
    assert len(links) == 0


def test_a_message_before_its_accept_event() -> None:
    links = ZmqLinks()
    links.message(9, b"C")
    links.accepted(9)
    assert len(links) == 1
    assert links.disconnected(9) == b"C"


def test_descriptors_are_kept_apart() -> None:
    links = ZmqLinks()
    for fd, who in ((3, b"A"), (4, b"B")):
        links.accepted(fd)
        links.message(fd, who)
    assert links.disconnected(4) == b"B"
    assert links.disconnected(3) == b"A"
