#!/usr/bin/env python3
"""Constructs the Ed25519 edge-case inputs of vectors/primitives/ed25519.json.

Independent of the Rust reference: the curve arithmetic is the RFC 8032 §6 Python reference
code (re-typed), hashing is Python's hashlib. Run `python3 ed25519_edge.py > ed25519_edge.json`;
the JSON is committed and read by vectors/src/areas/primitives.rs.

Each case records how it was built and the verdict of the two RFC 8032 verification equations:
  cofactorless:  [S]B == R + [k]A
  cofactored:    [8][S]B == [8]R + [8][k]A
plus whether A and R decode under RFC 8032 §5.1.3 (y < p, no sign bit on x = 0) and whether
S < L. Expected verdicts (decision D10):
  - S >= L, or an encoding RFC 8032 refuses to decode -> invalid (valid: false);
  - small-order or mixed-order A/R that an RFC 8032 verifier accepts (either equation holds)
    -> acceptable [false, true], flag Ed25519Cofactored;
  - neither equation holds -> valid: false.
"""
import hashlib, json

p = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493

def inv(x): return pow(x, p - 2, p)

d = -121665 * inv(121666) % p
SQRT_M1 = pow(2, (p - 1) // 4, p)

def add(P, Q):
    A, B = (P[1] - P[0]) * (Q[1] - Q[0]) % p, (P[1] + P[0]) * (Q[1] + Q[0]) % p
    C, D = 2 * P[3] * Q[3] * d % p, 2 * P[2] * Q[2] % p
    E, F, G, H = B - A, D - C, D + C, B + A
    return (E * F % p, G * H % p, F * G % p, E * H % p)

def mul(s, P):
    Q = (0, 1, 1, 0)
    while s > 0:
        if s & 1: Q = add(Q, P)
        P = add(P, P)
        s >>= 1
    return Q

def eq(P, Q):
    return (P[0] * Q[2] - Q[0] * P[2]) % p == 0 and (P[1] * Q[2] - Q[1] * P[2]) % p == 0

def recover_x(y, sign):
    if y >= p: return None
    x2 = (y * y - 1) * inv(d * y * y + 1) % p
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (p + 3) // 8, p)
    if (x * x - x2) % p != 0: x = x * SQRT_M1 % p
    if (x * x - x2) % p != 0: return None
    if (x & 1) != sign: x = p - x
    return x

def recover_x_lenient(y, sign):
    """ZIP215-style decoding: y reduced mod p, sign bit on x = 0 ignored."""
    y %= p
    x2 = (y * y - 1) * inv(d * y * y + 1) % p
    if x2 == 0: return 0
    x = pow(x2, (p + 3) // 8, p)
    if (x * x - x2) % p != 0: x = x * SQRT_M1 % p
    if (x * x - x2) % p != 0: return None
    if (x & 1) != sign: x = p - x
    return x

gy = 4 * inv(5) % p
gx = recover_x(gy, 0)
B = (gx, gy, 1, gx * gy % p)
ZERO = (0, 1, 1, 0)

def compress(P):
    zi = inv(P[2]); x = P[0] * zi % p; y = P[1] * zi % p
    return (y | ((x & 1) << 255)).to_bytes(32, "little")

def decompress(s, lenient=False):
    y = int.from_bytes(s, "little"); sign = y >> 255; y &= (1 << 255) - 1
    x = (recover_x_lenient if lenient else recover_x)(y, sign)
    if x is None: return None
    y %= p
    return (x, y, 1, x * y % p)

def sha512_int(b): return int.from_bytes(hashlib.sha512(b).digest(), "little")

def expand(seed):
    h = hashlib.sha512(seed).digest()
    a = int.from_bytes(h[:32], "little")
    a &= (1 << 254) - 8; a |= 1 << 254
    return a, h[32:]

def public(seed): return compress(mul(expand(seed)[0], B))

def sign(seed, msg):
    a, prefix = expand(seed)
    A = compress(mul(a, B))
    r = sha512_int(prefix + msg) % L
    R = compress(mul(r, B))
    k = sha512_int(R + A + msg) % L
    return R + ((r + k * a) % L).to_bytes(32, "little")

def is_small(P): return eq(mul(8, P), ZERO)
def torsion_free(P): return eq(mul(L, P), ZERO)

def equations(A_bytes, msg, sig):
    """(cofactorless, cofactored) with lenient decoding, hashing the given bytes."""
    A = decompress(A_bytes, lenient=True); R = decompress(sig[:32], lenient=True)
    S = int.from_bytes(sig[32:], "little")
    if A is None or R is None: return (False, False)
    k = sha512_int(sig[:32] + A_bytes + msg) % L
    lhs = mul(S, B); rhs = add(R, mul(k, A))
    plain = eq(lhs, rhs)
    cof = eq(mul(8, lhs), mul(8, rhs))
    return plain, cof

def analyse(A_bytes, msg, sig):
    info = {}
    A = decompress(A_bytes); R = decompress(sig[:32])
    info["rfc8032DecodesA"] = A is not None
    info["rfc8032DecodesR"] = R is not None
    info["sReduced"] = int.from_bytes(sig[32:], "little") < L
    info["smallOrderA"] = A is not None and is_small(A)
    info["smallOrderR"] = R is not None and is_small(R)
    info["mixedOrderA"] = A is not None and not is_small(A) and not torsion_free(A)
    info["mixedOrderR"] = R is not None and not is_small(R) and not torsion_free(R)
    plain, cof = equations(A_bytes, msg, sig)
    info["cofactorless"] = plain; info["cofactored"] = cof
    return info

# The 8 torsion points, found by multiplying points of the curve by L (kills the prime-order
# part) and collecting distinct results.
def torsion_points():
    pts = {}
    y = 2
    while len(pts) < 8:
        x = recover_x(y, 0)
        if x is not None:
            T = mul(L, (x, y, 1, x * y % p))
            for i in range(8):
                Q = mul(i, T)
                pts[compress(Q)] = Q
        y += 1
    return pts

TORSION = torsion_points()
assert len(TORSION) == 8
ORDER = {}
for enc, P in TORSION.items():
    for n in (1, 2, 4, 8):
        if eq(mul(n, P), ZERO): ORDER[enc] = n; break

MSG = hashlib.blake2b(b"delegateos-conformance/ed25519-edge", digest_size=32).digest()
SEED = hashlib.blake2b(b"delegateos-conformance/key/ed25519-edge", digest_size=32).digest()
a, prefix = expand(SEED)
A_GOOD = compress(mul(a, B))

cases = []
def case(name, desc, A_bytes, msg, sig, flags):
    info = analyse(A_bytes, msg, sig)
    if not info["rfc8032DecodesA"] or not info["rfc8032DecodesR"] or not info["sReduced"]:
        verdict = "invalid"
    elif info["smallOrderA"] or info["smallOrderR"] or info["mixedOrderA"] or info["mixedOrderR"]:
        verdict = "acceptable" if (info["cofactorless"] or info["cofactored"]) else "invalid"
    else:
        verdict = "valid" if info["cofactorless"] else "invalid"
    cases.append({"name": name, "description": desc, "publicKey": A_bytes.hex(),
                  "message": msg.hex(), "signature": sig.hex(), "flags": flags,
                  "construction": info, "verdict": verdict})

good = sign(SEED, MSG)
case("baseline", "a correct signature by an ordinary key", A_GOOD, MSG, good, [])

# S out of range.
S = int.from_bytes(good[32:], "little")
case("s-plus-l", "S replaced by S + L (same point, malleated scalar)", A_GOOD, MSG,
     good[:32] + (S + L).to_bytes(32, "little"), ["SNotReduced"])
case("s-equals-l", "S = L exactly", A_GOOD, MSG, good[:32] + L.to_bytes(32, "little"),
     ["SNotReduced"])
case("s-all-ones", "S = 2^256 - 1", A_GOOD, MSG, good[:32] + b"\xff" * 32, ["SNotReduced"])
case("s-plus-8l", "S replaced by S + 8L, still below 2^256", A_GOOD, MSG,
     good[:32] + (S + 8 * L).to_bytes(32, "little"), ["SNotReduced"])

# Small-order A (each torsion point), R = identity, S = 0: both equations hold only when
# [k]A is the identity (cofactorless); the cofactored one always holds.
ident = compress(ZERO)
for enc in sorted(TORSION):
    case(f"small-a-{enc.hex()[:8]}-{enc.hex()[-2:]}", f"small-order A of order {ORDER[enc]}, R = identity, S = 0",
         enc, MSG, ident + bytes(32), ["SmallOrderA", "SmallOrderR"])

# Small-order A and small-order R of order 8 (speccheck case 0 style).
order8 = sorted(e for e in TORSION if ORDER[e] == 8)
case("small-a-small-r", "A and R both of order 8, S = 0", order8[0], MSG,
     order8[1] + bytes(32), ["SmallOrderA", "SmallOrderR"])

# Small-order R with an ordinary key: S = k*a, so [8]SB = 8kA = 8R + 8kA.
for enc in order8[:2] + [ident]:
    k = sha512_int(enc + A_GOOD + MSG) % L
    case(f"small-r-{enc.hex()[:8]}-{enc.hex()[-2:]}", f"ordinary A, R of order {ORDER[enc]}, S = k*a",
         A_GOOD, MSG, enc + ((k * a) % L).to_bytes(32, "little"), ["SmallOrderR"])

# Mixed-order A: A' = A + T; S = r + k*a with k over A'.
T8 = TORSION[order8[0]]
A_mixed = compress(add(mul(a, B), T8))
r = sha512_int(prefix + b"mixed-a" + MSG) % L
Rm = compress(mul(r, B))
k = sha512_int(Rm + A_mixed + MSG) % L
case("mixed-a", "A = ordinary key + point of order 8 (torsion component)", A_mixed, MSG,
     Rm + ((r + k * a) % L).to_bytes(32, "little"), ["MixedOrderA"])
# Mixed-order A where the cofactorless equation holds too: search a message with k = 0 mod 8.
for i in range(1000):
    msg = MSG + bytes([i])
    k = sha512_int(Rm + A_mixed + msg) % L
    if k % 8 == 0:
        case("mixed-a-both-equations",
             "A with a torsion component, message chosen so both RFC 8032 equations hold",
             A_mixed, msg, Rm + ((r + k * a) % L).to_bytes(32, "little"), ["MixedOrderA"])
        break
# Mixed-order R: R' = rB + T.
R_mixed = compress(add(mul(r, B), T8))
k = sha512_int(R_mixed + A_GOOD + MSG) % L
case("mixed-r", "R = rB + point of order 8", A_GOOD, MSG,
     R_mixed + ((r + k * a) % L).to_bytes(32, "little"), ["MixedOrderR"])

# Non-canonical encodings (RFC 8032 §5.1.3 refuses to decode them).
def le(n): return n.to_bytes(32, "little")
noncanon = [
    ("y-p-plus-1", le(p + 1), "y = p + 1 (non-canonical identity)"),
    ("y-p", le(p), "y = p (non-canonical encoding of y = 0)"),
    ("identity-sign", le(1 | (1 << 255)), "identity with the sign bit set (x = 0, sign 1)"),
    ("minus-one-sign", le((p - 1) | (1 << 255)), "y = p - 1 with the sign bit set (x = 0, sign 1)"),
]
for name, enc, what in noncanon:
    case(f"noncanon-a-{name}", f"public key {what}, R = identity, S = 0", enc, MSG,
         ident + bytes(32), ["NonCanonicalA"])
for name, enc, what in noncanon[:3]:
    k = sha512_int(enc + A_GOOD + MSG) % L
    case(f"noncanon-r-{name}", f"R {what}, ordinary A, S = k*a over the non-canonical bytes",
         A_GOOD, MSG, enc + ((k * a) % L).to_bytes(32, "little"), ["NonCanonicalR"])

# Not a point at all.
y = 2
while recover_x(y, 0) is not None: y += 1
case("a-not-on-curve", f"public key y = {y}, which has no x on the curve", le(y), MSG, good,
     ["InvalidA"])
case("r-not-on-curve", f"R with y = {y} (no x on the curve)", A_GOOD, MSG, le(y) + good[32:],
     ["InvalidR"])

# Plain mismatches.
case("wrong-message", "a correct signature checked against another message", A_GOOD,
     MSG[:-1] + bytes([MSG[-1] ^ 1]), good, [])
flipped_r = bytes([good[0] ^ 1]) + good[1:]
case("flipped-r", "first byte of R flipped", A_GOOD, MSG, flipped_r, [])
flipped_s = good[:32] + bytes([good[32] ^ 1]) + good[33:]
case("flipped-s", "first byte of S flipped", A_GOOD, MSG, flipped_s, [])
other = public(hashlib.blake2b(b"other", digest_size=32).digest())
case("wrong-key", "a correct signature checked under another ordinary key", other, MSG, good, [])

print(json.dumps({"seed": SEED.hex(), "message": MSG.hex(), "publicKey": A_GOOD.hex(),
                  "goodSignature": good.hex(),
                  "torsion": {e.hex(): ORDER[e] for e in sorted(TORSION)},
                  "cases": cases}, indent=1))
