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
//   depth-no-count           never chain_depth_exceeded (only 4e's comparison)
//   caps-union               effective caps = union of all allowed lists that passed 4b
//   glob-doublestar-dotstar  glob via RegExp with `**` → `.*` (escaping done right)
//   narrow-vs-authority      4b/4c/4d compare with the authority, not the effective values
//   cap-cross-product        step 7: ns+action from one capability, resource from another
//   subset-cross-product     4b: the same cross product
//   offset-sign              timestamp offsets added instead of subtracted
//   depth-le                 4e: maxChainDepth == remaining allowed
//   issuedat-notbefore       now < issuedAt reported as expired
//   format-unchecked         decoded token's `format` member ignored
//   root-signer-key          signatures[0] verified under signatures[0].signer, not the issuer
global.DEFAULT_BUGS = [
  'expiry-inclusive', 'budget-gt', 'revocation-last-block', 'revocation-unsigned', 'subset-startswith',
  'attenuator-first-only', 'last-signature-only', 'covers-ignored', 'depth-ignores-chaindepth',
  'case-insensitive', 'depth-no-count', 'caps-union', 'glob-doublestar-dotstar', 'narrow-vs-authority',
  'cap-cross-product', 'subset-cross-product', 'offset-sign', 'depth-le',
  'issuedat-notbefore', 'format-unchecked', 'root-signer-key',
];
global.IMPLEMENTATION = { name: 'redteam js-chain (deliberately defective)', version: '0.0.1', language: 'javascript', bugs: process.env.REDTEAM_BUGS ?? global.DEFAULT_BUGS.join(',') };
require('../js-core/adapter.js');
