// The protocol over a WebSocket, in JSON: one request map per text frame, replies
// matched by id, partials handed to a callback, one final reply per request.

/** Close codes of a handshake the server refused, with the reason in the close frame
 * (`CODE: explanation`, SPEC §2.6): 4403 the page's origin, 4401 the access token. */
export const REFUSALS = new Set([4401, 4403]);

export class ProtocolError extends Error {
  constructor(error) {
    super(error.message || error.code);
    this.code = error.code;
    this.rule = error.rule;
    this.field = error.field;
  }

  /** "illegal_move (rule J5): message" — what the page shows. */
  describe() {
    const rule = this.rule ? ` (rule ${this.rule})` : "";
    return `${this.code}${rule}: ${this.message}`;
  }
}

export class Client {
  constructor(url) {
    this.url = url;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map();
    this.onclose = null;
    this.closed = null; // {code, reason} once the socket closed
    this.whenClosed = new Promise((resolve) => { this.closedNow = resolve; });
  }

  /** Open the socket; rejects when it cannot be opened. A refusal the server explains
   * comes after the opening, as a close (code in REFUSALS): see `closed`. */
  connect() {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url);
      let opened = false;
      ws.onopen = () => { opened = true; this.ws = ws; resolve(this); };
      ws.onclose = (ev) => {
        this.closed = { code: ev.code, reason: ev.reason };
        this.closedNow(this.closed);
        for (const p of this.pending.values()) {
          p.reject(new ProtocolError({ code: "disconnected", message: ev.reason || "the connection closed" }));
        }
        this.pending.clear();
        if (!opened) reject(new Error("connection refused"));
        else if (this.onclose) this.onclose(ev);
      };
      ws.onmessage = (ev) => this.receive(ev.data);
    });
  }

  receive(data) {
    if (typeof data !== "string") return; // we send JSON only: replies are JSON
    const msg = JSON.parse(data);
    const p = this.pending.get(msg.id);
    if (!p) return;
    if (msg.partial) {
      if (p.onPartial) p.onPartial(msg.result);
      return;
    }
    this.pending.delete(msg.id);
    if (msg.ok) p.resolve(msg.result);
    else p.reject(new ProtocolError(msg.error));
  }

  /** Send `cmd` with `args`; resolves with the result, rejects with a ProtocolError. */
  request(cmd, args = {}, onPartial = null) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
      return Promise.reject(new ProtocolError({ code: "disconnected", message: "not connected" }));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onPartial });
      this.ws.send(JSON.stringify({ id, cmd, ...args }));
    });
  }

  close() {
    if (this.ws) this.ws.close();
  }
}
