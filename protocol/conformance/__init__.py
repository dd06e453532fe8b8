"""Conformance vectors for the protocol and the runner that plays them against a server.

See protocol/vectors/README.md for the vector format and `python -m
protocol.conformance --help` for the runner. This package is a tool: it may
import zmq (lazily, for ZeroMQ endpoints); the codec never does.
"""
