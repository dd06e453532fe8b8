"""Secrets of hosted matches at rest and the retry sessions: the server key and what it keys.

One random 256-bit server key (a file beside the match database, mode 0600) keys:

* **token hashes**: the database stores `HMAC(key, token)` of every seat and owner
  token, never the token; a request's token is hashed and compared.
* **session keys**: `new_session()` issues `s1.RANDOM.MAC`; `check_session` verifies
  that the server issued it (no storage needed, survives restarts) and `scope` turns it
  into the retry scope stored with each request (a keyed hash: the database never holds
  a session key either).
* **sealed values**: a secret that must be given back later (the seed of a match not
  yet over; the tokens inside a stored `match_new` reply) is encrypted. A seed is sealed
  with the server key alone; a stored reply's tokens with a key derived from the server
  key *and the session key*, so only a request presenting that session can open them.

The cipher is the standard library's: a SHAKE-256 keystream (key, random 16-byte nonce)
XORed with the value, and an HMAC-SHA-256 tag over nonce and ciphertext.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from pathlib import Path

KEY_BYTES = 32
NONCE_BYTES = 16
TAG_BYTES = 16
SESSION_PREFIX = "s1"
TOKEN_HASH_PREFIX = "h1:"
SEALED_PREFIX = "x1:"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Secrets:
    """What the server key keys (see the module docstring)."""

    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("the server key is too short")
        self._key = key

    @classmethod
    def random(cls) -> Secrets:
        """A key for this process only (an in-memory database, or no database)."""
        return cls(secrets.token_bytes(KEY_BYTES))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Secrets:
        """The key in `path`, created (0600, atomically) when missing."""
        p = Path(path)
        try:
            data = p.read_bytes()
        except FileNotFoundError:
            data = secrets.token_bytes(KEY_BYTES)
            tmp = p.with_name(f"{p.name}.{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.write(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            try:
                os.link(tmp, p)  # never replaces a key another process wrote first
            except FileExistsError:
                data = p.read_bytes()
            finally:
                tmp.unlink()
        if len(data) != KEY_BYTES:
            raise ValueError(f"{p}: not a server key ({len(data)} bytes)")
        return cls(data)

    def _mac(self, *parts: bytes) -> bytes:
        return hmac.new(self._key, b"\0".join(parts), hashlib.sha256).digest()

    # -- tokens ----------------------------------------------------------------------

    def token_hash(self, token: str) -> str:
        """What the database keeps of a seat or owner token."""
        return TOKEN_HASH_PREFIX + self._mac(b"token", token.encode()).hex()

    def token_matches(self, token: str, stored: str | None) -> bool:
        return stored is not None and hmac.compare_digest(self.token_hash(token), stored)

    # -- sessions --------------------------------------------------------------------

    def new_session(self) -> str:
        """A fresh session key: only its holder can present it."""
        nonce = _b64(secrets.token_bytes(16))
        return f"{SESSION_PREFIX}.{nonce}.{_b64(self._mac(b'session', nonce.encode())[:16])}"

    def check_session(self, key: object) -> bool:
        """True when `key` is a session key this server (this key) issued."""
        if not isinstance(key, str) or len(key) > 128:
            return False
        parts = key.split(".")
        if len(parts) != 3 or parts[0] != SESSION_PREFIX:
            return False
        expected = _b64(self._mac(b"session", parts[1].encode())[:16])
        return hmac.compare_digest(expected, parts[2])

    def scope(self, session: str) -> str:
        """The retry scope of a session as stored (a keyed hash of the key)."""
        return "session:" + self._mac(b"scope", session.encode())[:20].hex()

    # -- sealing ---------------------------------------------------------------------

    def _seal_key(self, session: str | None) -> bytes:
        return self._mac(b"seal", (session or "").encode())

    def seal(self, value: str, session: str | None = None) -> str:
        key = self._seal_key(session)
        nonce = secrets.token_bytes(NONCE_BYTES)
        data = value.encode()
        stream = hashlib.shake_256(key + nonce).digest(len(data))
        body = nonce + bytes(a ^ b for a, b in zip(data, stream, strict=True))
        tag = hmac.new(key, body, hashlib.sha256).digest()[:TAG_BYTES]
        return SEALED_PREFIX + _b64(body + tag)

    def unseal(self, box: str, session: str | None = None) -> str | None:
        """The sealed value, or None when `box` is not sealed for this session."""
        if not isinstance(box, str) or not box.startswith(SEALED_PREFIX):
            return None
        try:
            raw = _unb64(box[len(SEALED_PREFIX):])
        except ValueError:
            return None
        if len(raw) < NONCE_BYTES + TAG_BYTES:
            return None
        key = self._seal_key(session)
        body, tag = raw[:-TAG_BYTES], raw[-TAG_BYTES:]
        if not hmac.compare_digest(hmac.new(key, body, hashlib.sha256).digest()[:TAG_BYTES],
                                   tag):
            return None
        nonce, data = body[:NONCE_BYTES], body[NONCE_BYTES:]
        stream = hashlib.shake_256(key + nonce).digest(len(data))
        try:
            return bytes(a ^ b for a, b in zip(data, stream, strict=True)).decode()
        except UnicodeDecodeError:
            return None
