#!/usr/bin/env python3
"""make_corpus.py - frames.in -> frames.txt: adds each frame's bytes (header + the fields in order,
little-endian, per docs/coordinator-protocol.md §1) as 'hex' lines. Run after editing frames.in;
the Java and C tests read frames.txt and check both the hex and the fields against their codecs."""
import hashlib, hmac, struct, sys, os

here = os.path.dirname(os.path.abspath(__file__))

def field_bytes(kind, value):
    if kind == 'u8' or kind == 'bool': return struct.pack('<B', int(value))
    if kind == 'u16': return struct.pack('<H', int(value))
    if kind == 'u32' or kind == 'count': return struct.pack('<I', int(value))
    if kind == 'i32': return struct.pack('<i', int(value))
    if kind == 'u64': return struct.pack('<Q', int(value))
    if kind == 'i64': return struct.pack('<q', int(value))
    if kind == 'str':
        b = value.encode('utf-8'); return struct.pack('<H', len(b)) + b
    if kind == 'bytes': return bytes.fromhex(value)
    if kind == 'blob':
        b = bytes.fromhex(value); return struct.pack('<I', len(b)) + b
    if kind == 'i64s':
        vs = [int(v) for v in value.split(',')] if value else []
        return struct.pack('<I', len(vs)) + b''.join(struct.pack('<q', v) for v in vs)
    raise SystemExit('unknown field kind ' + kind)

out = []
body = None
secret = None
nonces = {}

def proof(label):
    return hmac.new(secret.encode('utf-8'), label + nonces['challenge'] + nonces['auth'], hashlib.sha256).hexdigest()

for line in open(os.path.join(here, 'frames.in'), encoding='utf-8'):
    line = line.rstrip('\n')
    if line.startswith('frame '):
        _, name, tname, code, reqid = line.split(' ')
        body = b''
        fields = []
        continue
    if body is None:
        if line.startswith('secret '):
            secret = line[7:]
        out.append(line)
        continue
    if line == 'end':
        hdr = b'MNCP' + struct.pack('<HHII', 2, int(code, 16), len(body), int(reqid))
        frame = hdr + body
        out.append('frame %s %s %s %s' % (name, tname, code, reqid))
        for i in range(0, len(frame), 32):
            out.append('hex ' + frame[i:i + 32].hex())
        out.extend(fields)
        out.append('end')
        body = None
        continue
    parts = line.split(' ', 2)
    kind, fname = parts[0], parts[1]
    value = parts[2] if len(parts) > 2 else ''
    if value == '@client_proof':
        value = proof(b'MNCP2 client')
    elif value == '@coordinator_proof':
        value = proof(b'MNCP2 coordinator')
    if fname == 'nonce':
        nonces[name] = bytes.fromhex(value)
    body += field_bytes(kind, value)
    fields.append('%s %s %s' % (kind, fname, value) if value else '%s %s' % (kind, fname))

with open(os.path.join(here, 'frames.txt'), 'w', encoding='utf-8') as f:
    f.write('\n'.join(out).replace('source of frames.txt (make_corpus.py adds each frame\'s hex)',
                                   'generated from frames.in by make_corpus.py: do not edit') + '\n')
