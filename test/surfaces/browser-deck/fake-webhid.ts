/**
 * A fake `navigator.hid` for the page, injected as a Playwright init script: one Stream Deck MK.2
 * (`original-mk2`, 15 keys, 72×72 JPEG, the library's gen2 protocol) that the REAL
 * @elgato-stream-deck/webhid drives. It implements the part of WebHID's HIDDevice the library uses:
 * `open`/`close`, `sendReport` and `sendFeatureReport` (recorded), `receiveFeatureReport` (the serial
 * and firmware reports as the device answers them: report id first, then the length, then ASCII), and
 * `inputreport` events (key states, report 1). The test reads `window.__fakeDeck`.
 */

/** What the page records of one report written to the fake device. */
export interface RecordedReport {
  id: number
  /** The first bytes after the report id (enough for the header and the start of the body). */
  head: number[]
  length: number
}

export const FAKE_DECK_SERIAL = 'FAKE0001'
export const FAKE_DECK_FIRMWARE = '1.00.009'

/** The init script (a self-contained function body; Playwright runs it before the page's scripts). */
export function fakeWebHidScript(serial = FAKE_DECK_SERIAL, firmware = FAKE_DECK_FIRMWARE): string {
  return `(() => {
  const reports = [];
  const features = [];
  const ascii = (text) => Array.from(text, (c) => c.charCodeAt(0));
  class FakeDeck extends EventTarget {
    vendorId = 0x0fd9;
    productId = 0x0080;
    productName = 'Stream Deck MK.2';
    opened = false;
    collections = [];
    async open() { this.opened = true; }
    async close() { this.opened = false; }
    async forget() {}
    async sendReport(id, data) {
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      reports.push({ id, head: Array.from(bytes.subarray(0, 16)), length: bytes.length });
    }
    async sendFeatureReport(id, data) {
      const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      features.push({ id, head: Array.from(bytes.subarray(0, 16)), length: bytes.length });
    }
    async receiveFeatureReport(id) {
      const out = new Uint8Array(32);
      out[0] = id;
      if (id === 6) { const s = ascii(${JSON.stringify(serial)}); out[1] = s.length; out.set(s, 2); }
      else if (id === 5) { const f = ascii(${JSON.stringify(firmware)}); out[1] = f.length + 4; out.set(f, 6); }
      return new DataView(out.buffer);
    }
    /** Key states as the device reports them: report 1, [0x00, 15, 0, key0 .. key14]. */
    keys(down) {
      const data = new Uint8Array(3 + 15);
      data[1] = 15;
      for (const k of down) data[3 + k] = 1;
      const event = new Event('inputreport');
      Object.assign(event, { reportId: 1, data: new DataView(data.buffer), device: this });
      this.dispatchEvent(event);
    }
  }
  const device = new FakeDeck();
  const hid = {
    requestDevice: async () => [device],
    getDevices: async () => [device],
    addEventListener() {},
    removeEventListener() {},
  };
  Object.defineProperty(Navigator.prototype, 'hid', { get: () => hid, configurable: true });
  if (!('HID' in window)) window.HID = class HID extends EventTarget {};
  window.__fakeDeck = { device, reports, features };
})();`
}
