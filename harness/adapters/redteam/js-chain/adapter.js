#!/usr/bin/env node
'use strict';
// RED-TEAM ADAPTER — a deliberately defective DelegateOS verifier ("the chain logic looks
// right at a glance"). Not an implementation to copy: it exists so that
// harness/tests/redteam.rs can prove the vector corpus catches each seeded bug.
// Code: ../js-core/dos.js (bugs are `bug('name')`).
//
// Seeded bugs (set REDTEAM_BUGS to a comma list to override; "" = careful path):
//   expiry-inclusive         expired when now >= expiresAt
//   budget-gt                budget exceeded only when spent > budget
//   revocation-last-block    only the last block is looked up in the revocation list
//   revocation-unsigned      entry signatures are never verified (revokedBy must match)
//   subset-startswith        subset = child.resource.startsWith(parent text before `*`)
//   attenuator-first-only    4a only for the first attenuation
//   last-signature-only      intermediate attenuation signatures are skipped
//   covers-ignored           signatures[].covers / .signer never checked; count ≥ n+1
//   depth-ignores-chaindepth remaining depth = authority.maxChainDepth
//   case-insensitive         namespace/action compared case-insensitively
//   root-key-bytes           issuer == rootPublicKey compared as leniently-decoded bytes
//   depth-no-count           never chain_depth_exceeded (only 4e's comparison)
//   caps-union               effective caps = union of all allowed lists that passed 4b
//   glob-doublestar-dotstar  glob via RegExp with `**` → `.*` (escaping done right)
global.DEFAULT_BUGS = [
  'expiry-inclusive', 'budget-gt', 'revocation-last-block', 'revocation-unsigned', 'subset-startswith',
  'attenuator-first-only', 'last-signature-only', 'covers-ignored', 'depth-ignores-chaindepth',
  'case-insensitive', 'root-key-bytes', 'depth-no-count', 'caps-union', 'glob-doublestar-dotstar',
];
global.IMPLEMENTATION = { name: 'redteam js-chain (deliberately defective)', version: '0.0.1', language: 'javascript', bugs: process.env.REDTEAM_BUGS ?? global.DEFAULT_BUGS.join(',') };
require('../js-core/adapter.js');
