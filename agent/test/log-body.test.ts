import { describe, expect, it } from 'vitest';
import { encodeLogBody } from '../src/collectors/log-body.js';

const target = { namespace: 'shop', pod: 'web-1', container: 'app' };

/** What the agent posted before: the log decoded as UTF-8, then the whole request through JSON.stringify. */
function reference(clusterName: string, log: Buffer, where = target): Buffer {
  return Buffer.from(JSON.stringify({ clusterName, ...where, logContent: log.toString('utf8') }));
}

const allAscii = Buffer.from(Array.from({ length: 128 }, (_, i) => i));

const cases: Array<[string, Buffer]> = [
  ['an empty log', Buffer.alloc(0)],
  ['plain lines', Buffer.from('2026-01-05T10:00:00Z INFO handled path=/api/items/1 status=200\n'.repeat(50))],
  ['every ASCII byte, controls and DEL included', allAscii],
  ['quotes and backslashes', Buffer.from('say "hi" \\ C:\\path\\file "\\"\n')],
  ['tabs, CR, form feed, backspace, NUL, ESC', Buffer.from('a\tb\r\nc\fd\be\u0000f\u001b[31mred\u001b[0m\n')],
  ['non-ASCII text', Buffer.from('grüße 日本語 😀 café\n')],
  ['line and paragraph separators', Buffer.from('before\u2028middle\u2029after\n')],
  ['C1 controls and U+FFFD written in the log', Buffer.from('\u0085\u009f\ufffd\n')],
  ['a lone byte that is not UTF-8', Buffer.from([0x61, 0xff, 0x62, 0x0a])],
  ['a UTF-8 sequence cut at the byte cap', Buffer.from('ok 😀', 'utf8').subarray(0, 5)],
  ['an encoded surrogate (CESU-8), which UTF-8 forbids', Buffer.from([0x78, 0xed, 0xa0, 0x80, 0x79])],
  ['an overlong encoding of a slash', Buffer.from([0xc0, 0xaf, 0x22])],
  ['Latin-1 bytes with a quote', Buffer.from('caf\xe9 "x"\n', 'latin1')],
];

describe('log post body', () => {
  for (const [name, log] of cases) {
    it(`is byte for byte what JSON.stringify gives for ${name}`, () => {
      expect(encodeLogBody('test-cluster', target, log).equals(reference('test-cluster', log))).toBe(true);
    });
  }

  it('escapes names and the cluster name as JSON.stringify does', () => {
    const where = { namespace: 'n"s', pod: 'p\\od\u2028', container: 'c\n日本' };
    const log = Buffer.from('line\n');
    expect(encodeLogBody('clu"ster\u0001', where, log).equals(reference('clu"ster\u0001', log, where))).toBe(
      true,
    );
  });

  it('matches JSON.stringify for random bytes of every kind', () => {
    let seed = 42;
    const random = (): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const pieces = ['a', '"', '\\', '\n', '\u0007', '\u007f', 'é', '€', '😀', '\u2028'].map((s) =>
      Buffer.from(s),
    );
    for (let round = 0; round < 300; round++) {
      const parts: Buffer[] = [];
      const length = Math.floor(random() * 64);
      for (let i = 0; i < length; i++) {
        // Mostly valid UTF-8 pieces, sometimes a raw byte that may break it.
        parts.push(
          random() < 0.8
            ? (pieces[Math.floor(random() * pieces.length)] as Buffer)
            : Buffer.from([Math.floor(random() * 256)]),
        );
      }
      const log = Buffer.concat(parts);
      expect(encodeLogBody('c', target, log).toString('hex')).toBe(reference('c', log).toString('hex'));
    }
  });

  it('encodes a large log of quotes and newlines', () => {
    for (const size of [100_000, 1_000_000]) {
      const log = Buffer.from('x"\n'.repeat(size / 3));
      expect(encodeLogBody('c', target, log).equals(reference('c', log))).toBe(true);
    }
  });
});
