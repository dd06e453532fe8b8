// The protocol over a WebSocket, in JSON: one request map per text frame, replies
// matched by id, partials handed to a callback, one final reply per request.

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
  }

  /** Open the socket; rejects when the server refuses the handshake. */
  connect() {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.url);
      let opened = false;
      ws.onopen = () => { opened = true; this.ws = ws; resolve(this); };
      ws.onerror = () => { if (!opened) reject(new Error("connection refused")); };
      ws.onclose = (ev) => {
        for (const p of this.pending.values()) {
          p.reject(new ProtocolError({ code: "disconnected", message: "the connection closed" }));
        }
        this.pending.clear();
        if (opened && this.onclose) this.onclose(ev);
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
