// One WebSocket per open session (GET /api/sessions/{id}/live?after_seq=N):
// server frames go to `handlers` by type; commands return a promise of their
// reply's result (rejected with {code, message} when ok is false).

export class LiveSession {
  constructor(sessionId, afterSeq, handlers) {
    this.handlers = handlers;
    this.nextId = 1;
    this.pending = new Map();
    this.closed = false;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const url = `${scheme}://${location.host}/api/sessions/${encodeURIComponent(sessionId)}/live?after_seq=${afterSeq}`;
    this.ws = new WebSocket(url);
    this.opened = new Promise((resolve, reject) => {
      this.ws.addEventListener("open", () => resolve());
      this.ws.addEventListener("error", () => reject(new Error("the live connection failed")));
    });
    this.ws.addEventListener("message", (m) => this.onFrame(m.data));
    this.ws.addEventListener("close", () => {
      for (const { reject } of this.pending.values()) reject({ code: "UNAVAILABLE", message: "the live connection closed" });
      this.pending.clear();
      if (!this.closed) this.handlers.closed?.();
    });
  }

  onFrame(data) {
    let frame;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    if (frame.type === "reply") {
      const p = this.pending.get(frame.id);
      if (!p) return;
      this.pending.delete(frame.id);
      if (frame.ok) p.resolve(frame.result ?? {});
      else p.reject(frame.error ?? { code: "UNKNOWN", message: "the command failed" });
      return;
    }
    this.handlers[frame.type]?.(frame);
  }

  async send(op, fields = {}) {
    await this.opened;
    const id = this.nextId++;
    const reply = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.ws.send(JSON.stringify({ id, op, ...fields }));
    return reply;
  }

  close() {
    this.closed = true;
    this.ws.close();
  }
}
