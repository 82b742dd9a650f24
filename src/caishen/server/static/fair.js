// Fair play a player can check (docs/fairness.md): the page's own randomness in every wall,
// and a verifier that needs nothing from the server. Plain JavaScript with WebCrypto
// (crypto.subtle) only: it runs in any current browser, also offline (open a saved record
// with it), and in Chromium under the tests.
"use strict";

const FairCheck = (() => {
  const enc = new TextEncoder();
  const FAIR_1 = "caishen-fair-1";
  const FAIR_2 = "caishen-fair-2";
  const NO_CONTRIBUTION = ["bot", "none", "timeout"];

  function hex(bytes) { return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""); }
  function unhex(text, size) {
    if (typeof text !== "string" || !/^([0-9a-fA-F]{2})*$/.test(text)) throw new Error(`not hex: ${String(text).slice(0, 80)}`);
    const out = new Uint8Array(text.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
    if (size !== undefined && out.length !== size) throw new Error(`${2 * size} hex digits expected, not ${text.length}`);
    return out;
  }
  function concat(...parts) {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) { out.set(p, at); at += p.length; }
    return out;
  }
  function u32(n) { return new Uint8Array([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]); }

  async function sha256(bytes) { return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)); }
  async function hmacKey(key) {
    return crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  }
  async function hmac(key, msg) { return new Uint8Array(await crypto.subtle.sign("HMAC", key, msg)); }

  // The byte stream of a label: HMAC-SHA256(seed, label || counter), counter 0, 1, ... (4 bytes BE).
  function stream(key, label) {
    let block = new Uint8Array(0), pos = 0, counter = 0;
    return async () => {
      if (pos === block.length) {
        block = await hmac(key, concat(enc.encode(label), u32(counter++)));
        pos = 0;
      }
      return block[pos++];
    };
  }
  // A uniform integer below m <= 256: one byte, rejected when >= 256 - 256 % m.
  async function below(next, m) {
    if (m === 1) return 0;
    const limit = 256 - (256 % m);
    for (;;) { const b = await next(); if (b < limit) return b % m; }
  }

  // Tile kinds (caishen.tiles): 0-8 1m-9m, 9-17 1p-9p, 18-26 1s-9s, 27-33 1z-7z, 34-37 f1-f4.
  function tileName(k) {
    if (k >= 34) return `f${k - 33}`;
    return `${(k % 9) + 1}${"mpsz"[Math.floor(k / 9)]}`;
  }
  // The tile set of a record's variant (docs/fairness.md: 4 of each kind, 1 of each flower).
  function tileSet(record) {
    const rs = record.ruleset || {};
    const variant = record.version === 1 ? "longgang" : record.variant;
    let keep;
    if (variant === "longgang") keep = (k) => (rs.has_white || k !== 31) && (rs.has_flowers || k < 34);
    else if (variant === "luoyang-gangci") keep = (k) => k < 34;
    else throw new Error(`variant ${variant} is not known to this checker`);
    const tiles = [];
    for (let k = 0; k < 38; k++) if (keep(k)) for (let i = 0; i < (k >= 34 ? 1 : 4); i++) tiles.push(k);
    return tiles;
  }

  // Fisher-Yates over a copy of items, from the stream next (caishen.fair's walls and seat draw).
  async function shuffled(next, items) {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = await below(next, i + 1);
      const t = out[i]; out[i] = out[j]; out[j] = t;
    }
    return out;
  }
  async function shuffledWall(seed, tiles) {
    return (await shuffled(stream(await hmacKey(seed), "wall"), tiles)).map(tileName);
  }
  async function dice(seed) {
    const next = stream(await hmacKey(seed), "dice");
    const out = [];
    for (let i = 0; i < 4; i++) out.push((await below(next, 6)) + 1);
    return out;
  }
  // The seat draw 校位定莊 (L2) of a match from its master seed, as caishen.fair.seat_draw and
  // caishen.table.seating make it: the tiles drawn (a shuffle of the first n of E S W N 中 发,
  // from the "seats" stream), the provisional East's two dice, the seats that follow (counting
  // the provisional East as 1) and who waits.
  const SEAT_TILES = ["E", "S", "W", "N", "中", "发"];
  async function seatDraw(seed, players) {
    const next = stream(await hmacKey(seed), "seats");
    const tiles = await shuffled(next, Array.from({ length: players }, (_, i) => i));
    const d = [(await below(next, 6)) + 1, (await below(next, 6)) + 1];
    const holder = [];
    tiles.forEach((t, p) => { holder[t] = p; });
    const east = (d[0] + d[1] - 1) % 4;
    return { tiles: tiles.map((t) => SEAT_TILES[t]), dice: d, seats: [0, 1, 2, 3].map((i) => holder[(east + i) % 4]),
      waiting: holder.slice(4) };
  }
  // Hand index's seed, hex, from the match seed's HMAC key (imported once per record).
  async function handSeed(matchKey, index) { return hex(await hmac(matchKey, concat(enc.encode("hand"), u32(index)))); }
  function mixMessage(contributions, index) {
    const parts = contributions.map((c) => (c === null ? new Uint8Array(33) : concat(new Uint8Array([1]), c)));
    return concat(...parts, u32(index));
  }
  async function wallSeed(seed, contributions, index) {
    return hmac(await hmacKey(seed), mixMessage(contributions, index));
  }
  async function chainedCommitment(seed, prev, index) { return hex(await sha256(concat(prev, u32(index), seed))); }

  // Canonical JSON: sorted keys, no spaces, characters as themselves (JSON.stringify's escapes).
  function canonical(x) {
    if (Array.isArray(x)) return `[${x.map(canonical).join(",")}]`;
    if (x !== null && typeof x === "object") {
      return `{${Object.keys(x).sort().map((k) => `${JSON.stringify(k)}:${canonical(x[k])}`).join(",")}}`;
    }
    return JSON.stringify(x);
  }
  async function handDigest(hand) { return sha256(enc.encode(canonical(hand))); }

  // Signed moves (docs/fairness.md): the canonical bytes of a person's move, and the check of
  // every signature of a hand by its seat's key (ECDSA P-256, SHA-256, r || s).
  const MOVE_LABEL = "caishen-move-1";
  function moveMessage(room, hand, step, action) { return enc.encode(`${MOVE_LABEL}\n${room}\n${hand}\n${step}\n${action}`); }
  // Each move's step, and the step an older record signed it at (caishen/table/movesig.py,
  // Steps): the moves before it that a player is told of, every move but the passes and, of the
  // claims on one discard or added kong, only one; an answer to it (by a seat that neither
  // opened the window nor answered it yet, after answers only) has the step after the move it
  // answers, however many claimed before it. Older records counted every move but the passes.
  const OPENS = new Set(["discard", "added_kong"]);
  const ANSWERS = new Set(["pass", "chow", "pong", "exposed_kong", "win"]);
  // The hand's first discard's window may hold the opening kong round (Longgang L9) before
  // its answers: a concealed kong before any claim counts and moves the window's step after it,
  // a pass never ends it, and only a seat that claimed in it ends it with a claim's word.
  // Each move's steps a signature is accepted at (movesig.accepted): its step, the other step a
  // table may have asked it at when the record alone leaves open whether it answered a window
  // (a sea-floor tile's win or pass right after an exposed kong), and the older count; each once.
  function acceptedSteps(actions) {
    return moveSteps(actions).map(([step, also, older]) => [...new Set([step, also, older])]);
  }
  // [step, also, older] of each move (movesig.Steps.add and .also)
  function moveSteps(actions) {
    let count = 0, older = 0, opened = null, seats = new Set(), claimers = new Set(), claimed = false;
    let first = false, discarded = false;
    return actions.map(([seat, action]) => {
      const kind = action.split(" ")[0];
      const window = opened, before = count;
      const answers = first ? kind === "pass" || !claimers.has(seat) : !seats.has(seat);
      let at;
      if (opened !== null && ANSWERS.has(kind) && answers) {
        at = [opened, older];
        seats.add(seat);
        if (kind !== "pass") {
          claimers.add(seat);
          if (!claimed) { claimed = true; count += 1; }
        }
      } else if (opened !== null && first && kind === "concealed_kong" && !claimed) {
        at = [count, older];
        count += 1;
        opened = count;
      } else {
        at = [count, older];
        opened = null;
        if (kind !== "pass") count += 1;
        if (OPENS.has(kind)) {
          opened = count; seats = new Set([seat]); claimers = new Set([seat]); claimed = false;
          first = kind === "discard" && !discarded;
        }
        if (kind === "discard") discarded = true;
      }
      const also = window === null || !ANSWERS.has(kind) ? at[0] : at[0] === window ? before : window;
      const out = [at[0], also, at[1]];
      if (kind !== "pass") older += 1;
      return out;
    });
  }
  const ECDSA = { name: "ECDSA", namedCurve: "P-256" };
  // Resolves to null, or to [problem, expected, recorded] for the hand's first move that fails.
  // The checks of every hand start at once (WebCrypto runs them off the page's thread); each
  // hand's result is read in its turn, so the first failure named is the one caishen verify names.
  async function checkSignatures(room, h, counts, keys) {
    if (typeof room !== "string") return ["signed moves without the room they were signed for", "record.room", String(room)];
    const jobs = [];
    try {
      const steps = acceptedSteps(h.actions);
      h.actions.forEach(([seat, action], i) => {
        const sig = h.signatures[i];
        if (sig === "server") counts.server += 1;
        else if (sig === "unsigned") counts.unsigned += 1;
        else {
          const key = h.signers[seat];
          const bad = `actions[${i}] (seat ${seat} ${action}) is not signed by the seat's own key: a move put in the person's name`;
          const shown = `${String(sig).slice(0, 16)}...`;
          if (key === null) { jobs.push(Promise.resolve([bad, "a signature by no key", shown])); return; }
          if (!keys[key]) keys[key] = crypto.subtle.importKey("raw", unhex(key, 65), ECDSA, false, ["verify"]);
          const check = (k, at) => crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, k, unhex(sig, 64),
            moveMessage(room, h.index, at, action));
          const any = async (k) => { for (const at of steps[i]) if (await check(k, at)) return true; return false; };
          jobs.push(keys[key].then(any)
            .then((ok) => (ok ? null : [bad, `a signature by ${key.slice(0, 16)}...`, shown]), () => [bad, "a P-256 key", key]));
          counts.signed += 1;
        }
      });
    } catch (err) { return ["signed moves", "keys and signatures in hex", err.message]; }
    return (await Promise.all(jobs)).find((x) => x !== null) || null;
  }

  function checkTimeline(h, fail) {
    const ev = h.timeline;
    const order = "commit, contribute S for each contribution, deal, reveal";
    const count = (w) => ev.filter((e) => e === w).length;
    if (!Array.isArray(ev) || ev[0] !== "commit" || count("commit") !== 1 || count("deal") !== 1 || count("reveal") !== 1
        || ev.indexOf("deal") > ev.indexOf("reveal")) fail("the order of events", order, ev.join(", "));
    const deal = ev.indexOf("deal"), reveal = ev.indexOf("reveal");
    ev.forEach((e, i) => {
      if (e.startsWith("contribute") && i > deal) {
        fail(`a contribution arrived ${i > reveal ? "after the seed was revealed" : "after the deal"}`,
          "contributions before the deal", ev.join(", "));
      }
    });
    if (ev[ev.length - 1] !== "reveal") fail("the order of events", order, ev.join(", "));
    const seats = ev.filter((e) => e.startsWith("contribute")).map((e) => Number(e.split(" ")[1])).sort();
    const have = h.contributions.map((c, s) => (NO_CONTRIBUTION.includes(c) ? -1 : s)).filter((s) => s >= 0);
    if (seats.join() !== have.join()) fail("contributions and their events differ", `seats ${have}`, `seats ${seats}`);
  }

  // Check a record (its JSON text or the parsed object) from its revealed seeds alone: every
  // commitment, the chain, the order of events, every wall and the dice, every draw's tile.
  // Resolves to {ok, hands, draws, ms, message, contributions}; never asks the server.
  async function verifyRecord(input) {
    const t0 = performance.now();
    const rec = typeof input === "string" ? JSON.parse(input) : input;
    let hands = 0, draws = 0;
    const contributions = [];
    const counts = { signed: 0, server: 0, unsigned: 0 }, keys = {};
    let matchSeed = null;
    // where, as caishen verify says it: hand i counted from 1 as the pages count it, and its
    // place in the file (part: "draws[70]")
    const failAt = (i, problem, expected, recorded, part = "") => {
      throw new Error(`hand ${i + 1} (hands[${i}]${part && "." + part}): ${problem}: expected ${expected}, recorded ${recorded}`);
    };
    try {
      if (rec.format !== "caishen-record" || ![1, 2, 3].includes(rec.version)) throw new Error("not a caishen record of version 1-3");
      const tiles = tileSet(rec);
      const signed = rec.hands.map((h) => (rec.version >= 3 && h.signatures ? checkSignatures(rec.room, h, counts, keys) : null));
      // a match played from one revealed master seed: its seat draw and every hand's seed come from it
      matchSeed = typeof rec.seed === "string" ? unhex(rec.seed) : null;
      const matchKey = matchSeed && await hmacKey(matchSeed);
      if (matchSeed && rec.seat_draw) {
        const expected = canonical(await seatDraw(matchSeed, rec.players.length));
        if (expected !== canonical(rec.seat_draw)) failAt(0, "the seat draw is not the one the match seed gives (L2)", expected, canonical(rec.seat_draw));
      }
      let prev = new Uint8Array(32);
      for (const [i, h] of rec.hands.entries()) {
        const fail = (...args) => failAt(i, ...args);
        if (h.index !== i) fail("hand number", i, h.index);
        if (h.seed === null) fail("seed not revealed", "the hand's seed", "null");
        const seed = unhex(h.seed);
        const algorithm = rec.version >= 3 ? h.algorithm : FAIR_1;
        let dealSeed = seed;
        if (algorithm === FAIR_2) {
          if (h.prev !== hex(prev)) fail("the chain is broken: prev is not the digest of the hand before (a hand removed, reordered or replaced)", hex(prev), h.prev);
          const c = await chainedCommitment(seed, prev, i);
          if (c !== h.commitment) fail("the revealed seed does not match the commitment", `SHA-256(prev + index + seed) ${c}`, h.commitment);
          checkTimeline(h, fail);
          const sigFail = await signed[i];
          if (sigFail) fail(...sigFail);
          const values = h.contributions.map((x) => (NO_CONTRIBUTION.includes(x) ? null : unhex(x, 32)));
          dealSeed = await wallSeed(seed, values, i);
          contributions.push(h.contributions);
        } else if (algorithm === FAIR_1) {
          const c = hex(await sha256(seed));
          if (c !== h.commitment) fail("the revealed seed does not match the commitment", `SHA-256 ${c}`, h.commitment);
          contributions.push(null);
        } else fail("algorithm", `${FAIR_1} or ${FAIR_2}`, h.algorithm);
        const wall = await shuffledWall(dealSeed, tiles);
        const recorded = h.wall.split(" ");
        if (recorded.length !== wall.length) fail("wall size", `${wall.length} tiles`, `${recorded.length} tiles`);
        const p = wall.findIndex((x, k) => x !== recorded[k]);
        if (p >= 0) fail(`wall position ${p}`, wall[p], recorded[p]);
        const d = await dice(dealSeed);
        if (d.join() !== h.dice.join()) fail("dice", `[${d}]`, `[${h.dice}]`);
        if (matchSeed) {
          const want = await handSeed(matchKey, i);
          if (want !== h.seed) fail("the hand's seed is not the one the match seed gives (L4)", want, h.seed);
        }
        const taken = new Set();
        h.draws.forEach(([seat, pos, tile], k) => {
          if (wall[pos] !== tile) fail("the draw does not match the wall", `${wall[pos]} at wall position ${pos}`, `seat ${seat} takes ${tile}`, `draws[${k}]`);
          if (taken.has(pos)) fail("a wall position drawn twice", "each wall position drawn once", `position ${pos} again`, `draws[${k}]`);
          taken.add(pos);
        });
        draws += h.draws.length;
        hands += 1;
        prev = await handDigest(h);
      }
    } catch (err) {
      return { ok: false, hands, draws, ms: performance.now() - t0, message: err.message, contributions, moves: counts };
    }
    const signed = counts.signed + counts.server + counts.unsigned
      ? `; moves: ${counts.signed} signed by the person's own key, ${counts.server} by the server (bots, stand-ins), ${counts.unsigned} unsigned` : "";
    return { ok: true, hands, draws, ms: performance.now() - t0, contributions, moves: counts,
      message: `${hands} hands, ${draws} draws: every wall, die and draw comes from the revealed seeds and contributions; the chain holds`
        + `${matchSeed ? `; ${rec.seat_draw ? "every hand's seed and the seat draw come" : "every hand's seed comes"} from the match seed` : ""}${signed}` };
  }

  return { verifyRecord, shuffledWall, dice, seatDraw, handSeed, wallSeed, mixMessage, chainedCommitment, canonical, handDigest, tileSet,
    tileName, hex, unhex, moveMessage, moveSteps, acceptedSteps };
})();

// ---------------------------------------------------------------- the pages' part

if (typeof I18N !== "undefined") {
  Object.assign(I18N.zh, {
    fairSending: "第{0}局：正在发送你的随机数 {1}", fairTaken: "第{0}局：桌上已收到你的随机数 {1}，发牌时混入",
    fairMixed: "第{0}局：你的随机数已混入牌墙：{1}", fairOther: "第{0}局：桌上记录的不是本页发出的随机数：{1}",
    fairElsewhere: "第{0}局：你的随机数由你在别处打开的页面发出（本浏览器无从比对）：{1}",
    fairNone: "第{0}局：你的随机数未混入（超时或未连接）", verifiedBrowser: "已在你的浏览器中验证",
    browserFail: "浏览器验证失败", serverOpinion: "也请服务器验证（第二意见）", contributions: "各家随机数（按座位）",
    browserChecking: "正在你的浏览器中验证……",
    moveKey: "你的走牌密钥（本页签名每一步）：{0}…", moveKeyNone: "此浏览器不能签名走牌：你的每一步记为未签名",
    signers: "各家走牌密钥（按座位）",
    contrib_bot: "机器人", contrib_none: "无",
    centreKey: "本站签名公钥（也在 /api/signing-key 公布）：{0}", recordSignedByIt: "✔ 这份记录由这把钥匙签名",
    recordOtherKey: "✘ 这份记录写的签名钥匙不是本站公布的这一把：{0}",
    fairPlain: "这说明什么：每局发牌前，本站先公布“承诺”（它那份种子的指纹），再混入各家页面发来的随机数洗牌；局后公开种子。你的浏览器重算一遍：种子与承诺相符，加上各家的随机数正好洗出这局的牌墙、骰子和每一次摸牌。本站在知道你的随机数之前就定下了自己那一份，所以既不能挑牌，也不能在局中换牌。",
    browserScope: "浏览器验证的是牌墙、骰子、摸牌、各局链条、签名的走牌，以及（公布了整场种子时）校位和各局种子；分数、筹码和本站签名由“第二意见”或离线的 caishen verify --key 验证。",
  });
  Object.assign(I18N.en, {
    fairSending: "Hand {0}: sending your randomness {1}", fairTaken: "Hand {0}: the table has your randomness {1}; the wall will mix it in",
    fairMixed: "Hand {0}: your randomness was mixed in: {1}", fairOther: "Hand {0}: the table holds another value than this page sent: {1}",
    fairElsewhere: "Hand {0}: your randomness came from your page elsewhere (nothing here to compare it with): {1}",
    fairNone: "Hand {0}: your randomness was not mixed in (too late, or not connected)", verifiedBrowser: "Verified in your browser",
    browserFail: "Failed in your browser", serverOpinion: "Ask the server too (second opinion)",
    contributions: "Contributions (by seat)", browserChecking: "Checking in your browser…",
    moveKey: "Your move key (this page signs each of your moves): {0}…",
    moveKeyNone: "This browser cannot sign moves: yours are recorded unsigned", signers: "Move keys (by seat)",
    contrib_bot: "bot", contrib_none: "none",
    centreKey: "This centre's signing key (also published at /api/signing-key): {0}", recordSignedByIt: "✔ this record is signed with it",
    recordOtherKey: "✘ this record names another signing key than the one this centre publishes: {0}",
    fairPlain: "What this shows: before each hand the centre publishes a commitment (a fingerprint of its seed), then shuffles with the randomness of each player's page mixed in; after the hand it reveals the seed. Your browser works it all out again: the seed matches the commitment, and with everyone's randomness it makes exactly the wall, the dice and the draws that were played. The centre fixed its part before it knew yours, so it could neither pick the tiles nor change them during the hand.",
    browserScope: "The browser checks the walls, dice, draws, the chain of hands, the signed moves and, where the match seed is revealed, the seat draw and every hand's seed; the scores, the chips and the centre's signature are checked by the second opinion, or offline by caishen verify --key.",
  });
}

// The page's own randomness: for each hand whose commitment the table publishes, 32 bytes from
// crypto.getRandomValues, kept in this browser (a reload or another tab of the room sends the
// same; only the room in play is kept), sent once; then the line under the table says whether
// the table mixed it in.
const FairPage = (() => {
  const mine = {};  // hand -> hex, the values this page drew or found
  const PREFIX = "caishen.contribution.";
  function stored(code, hand) {
    try { return localStorage.getItem(`${PREFIX}${code}.${hand}`); } catch (e) { return null; }
  }
  function drawn(code, hand) {
    let v = mine[hand] || stored(code, hand);
    if (!v) {
      v = FairCheck.hex(crypto.getRandomValues(new Uint8Array(32)));
      try {
        for (const k of Object.keys(localStorage)) if (k.startsWith(PREFIX) && !k.startsWith(`${PREFIX}${code}.`)) localStorage.removeItem(k);
        localStorage.setItem(`${PREFIX}${code}.${hand}`, v);
      } catch (e) { /* storage refused (private mode): this page's memory only */ }
    }
    mine[hand] = v;
    return v;
  }
  let shown = null;  // the line's words and class, drawn again in a new language
  function show(cls, key, ...args) {
    const el = document.getElementById("fairline");
    if (!el) return;
    shown = [cls, key, ...args];
    el.textContent = t(key, ...args);
    el.className = "fair " + (cls || "");
  }
  // (common.js gives onLang; the page of tests/test_fair_vectors.py is fair.js alone)
  if (typeof onLang === "function") onLang(() => { if (shown) show(...shown); });
  // A {"type": "fair"} message from the table; send(msg) answers it.
  function onMessage(msg, send, code) {
    const n = msg.hand + 1;
    if (msg.open && msg.mine === null) {
      const value = drawn(code, msg.hand);
      send({ type: "contribute", hand: msg.hand, value });
      show("", "fairSending", n, value);
      return;
    }
    const own = mine[msg.hand] || stored(code, msg.hand);
    if (msg.mine !== null && msg.mine === own) {
      show("pos", msg.dealt ? "fairMixed" : "fairTaken", n, own);
    } else if (msg.mine !== null && !own) {
      // sent by this person's page in another browser or device: nothing here to compare with
      show("muted", "fairElsewhere", n, msg.mine);
    } else if (msg.mine !== null) {
      show("neg", "fairOther", n, msg.mine);  // this page sent another value: the table changed it
    } else if (msg.dealt) {
      show("muted", "fairNone", n);
    }
  }
  return { onMessage };
})();



// Moves signed by the person who made them (docs/fairness.md, "Signed moves"): an ECDSA P-256
// key pair made with WebCrypto, its private key not extractable, kept in this browser's
// IndexedDB for the room (a reload signs with the same key; only the room in play is kept).
// The page registers the public key with its connection ({"type": "key"}) and signs every move
// over "caishen-move-1 LF room LF hand LF step LF action". Without WebCrypto (http on an
// address other than localhost) or IndexedDB the page plays unsigned: the record says so.
const MoveSigner = (() => {
  const DB = "caishen-move-keys", STORE = "keys", ALG = { name: "ECDSA", namedCurve: "P-256" };
  let mine = null;  // Promise of {privateKey, pub} or null, for the room in play
  function usable() {
    return typeof crypto !== "undefined" && !!crypto.subtle && typeof indexedDB !== "undefined";
  }
  function req(r) { return new Promise((ok, bad) => { r.onsuccess = () => ok(r.result); r.onerror = () => bad(r.error); }); }
  async function open() {
    const r = indexedDB.open(DB, 1);
    r.onupgradeneeded = () => r.result.createObjectStore(STORE);
    return req(r);
  }
  async function load(code) {
    let db = null;
    try { db = await open(); } catch (e) { db = null; }  // refused (private mode): this page's memory only
    try {
      if (db) {
        const found = await req(db.transaction(STORE).objectStore(STORE).get(code));
        if (found && found.privateKey && found.pub) return found;
      }
      const pair = await crypto.subtle.generateKey(ALG, false, ["sign"]);
      const pub = FairCheck.hex(new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey)));
      const entry = { privateKey: pair.privateKey, pub };
      if (db) {
        const tx = db.transaction(STORE, "readwrite"), st = tx.objectStore(STORE);
        for (const k of await req(st.getAllKeys())) if (k !== code) st.delete(k);
        st.put(entry, code);
        await new Promise((ok) => { tx.oncomplete = ok; tx.onerror = ok; tx.onabort = ok; });
      }
      return entry;
    } finally { if (db) db.close(); }
  }
  // This browser's key for room `code`: {privateKey, pub}, or null where the page cannot sign.
  function key(code) {
    if (!mine) mine = usable() ? load(code).catch(() => null) : Promise.resolve(null);
    return mine;
  }
  // The signature (r || s, hex) of a move, or null (no key).
  async function sign(code, hand, step, action) {
    const k = await key(code);
    if (!k) return null;
    const sig = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, k.privateKey, FairCheck.moveMessage(code, hand, step, action));
    return FairCheck.hex(new Uint8Array(sig));
  }
  return { key, sign };
})();
