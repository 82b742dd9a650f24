// Sound at the table: a tile's clack on every discard, the call spoken in Mandarin for 吃 碰
// 杠 胡 and a flower 花, a chime when it is your turn, a fanfare for a win. The clack, chime
// and fanfare are made here with WebAudio; the calls are files made with espeak-ng
// (static/sounds/<voice>/<call>.ogg; another voice, e.g. a Wenzhou or Henan dialect pack,
// is another folder with the same file names: docs/server.md, "Sound"). Volume and mute are
// remembered (localStorage).
"use strict";

const SOUND = (() => {
  const CALL_FILE = { chow: "chi", pong: "peng", exposed_kong: "gang", added_kong: "gang", concealed_kong: "gang", win: "hu", flower: "hua" };
  let ctx = null;
  const files = {};
  const st = {
    volume: Number(localStorage.getItem("caishen.volume") || "0.7"),
    muted: localStorage.getItem("caishen.muted") === "1",
    voice: localStorage.getItem("caishen.voice") || "mandarin",
    played: [],  // what was played, in order (tests read it)
  };

  function audio() {
    if (!ctx) {
      const AC = window.AudioContext || window.webkitAudioContext;
      if (!AC) return null;
      ctx = new AC();
    }
    if (ctx.state === "suspended") ctx.resume().catch(() => {});
    return ctx;
  }

  function gain(a, level) {
    const g = a.createGain();
    g.gain.value = level * st.volume;
    g.connect(a.destination);
    return g;
  }

  function tone(a, freq, start, len, level, type = "sine") {
    const o = a.createOscillator();
    const g = gain(a, level);
    o.type = type;
    o.frequency.value = freq;
    g.gain.setValueAtTime(level * st.volume, a.currentTime + start);
    g.gain.exponentialRampToValueAtTime(0.0001, a.currentTime + start + len);
    o.connect(g);
    o.start(a.currentTime + start);
    o.stop(a.currentTime + start + len + 0.02);
  }

  const MADE = {
    // two hard surfaces: a short noise burst through a band-pass, and a click
    clack(a) {
      const n = Math.floor(a.sampleRate * 0.06);
      const buf = a.createBuffer(1, n, a.sampleRate);
      const d = buf.getChannelData(0);
      for (let i = 0; i < n; i++) d[i] = (Math.random() * 2 - 1) * Math.pow(1 - i / n, 6);
      const src = a.createBufferSource();
      src.buffer = buf;
      const bp = a.createBiquadFilter();
      bp.type = "bandpass"; bp.frequency.value = 2400; bp.Q.value = 1.2;
      src.connect(bp); bp.connect(gain(a, 0.9));
      src.start();
      tone(a, 1800, 0, 0.03, 0.15, "triangle");
    },
    chime(a) { tone(a, 880, 0, 0.25, 0.25); tone(a, 1318.5, 0.12, 0.35, 0.22); },
    fanfare(a) { [523.3, 659.3, 784, 1046.5].forEach((f, i) => tone(a, f, i * 0.12, 0.45, 0.22, "triangle")); },
  };

  function play(name) {
    st.played.push(name);
    if (st.muted || st.volume <= 0) return;
    const a = audio();
    if (a && MADE[name]) MADE[name](a);
  }

  function call(kind) {
    const file = CALL_FILE[kind];
    if (!file) return;
    st.played.push("call:" + file);
    if (st.muted || st.volume <= 0) return;
    const url = `/static/sounds/${st.voice}/${file}.ogg`;
    const el = files[url] || (files[url] = new Audio(url));
    el.volume = Math.min(1, st.volume);
    el.currentTime = 0;
    el.play().catch(() => {});
    if (kind === "win") setTimeout(() => play("fanfare"), 500);
  }

  // a new state: my turn begins (chime), a flower laid open by anyone (花)
  function onState(before, now) {
    if (!before || before.hand !== now.hand) return;
    const mine = (v) => v.choices.some((c) => c.kind === "discard");
    if (mine(now) && !mine(before)) play("chime");
    const flowers = (v) => v.seats.reduce((n, s) => n + s.flowers.length, 0);
    if (flowers(now) > flowers(before)) call("flower");
  }

  function setVolume(v) { st.volume = v; localStorage.setItem("caishen.volume", String(v)); }
  function setMuted(m) { st.muted = m; localStorage.setItem("caishen.muted", m ? "1" : "0"); }

  // the controls in the bar: mute and volume
  function controls() {
    const mute = h("input", { type: "checkbox", id: "mutebox" });
    mute.checked = !st.muted;
    mute.addEventListener("change", () => { setMuted(!mute.checked); audio(); });
    const vol = h("input", { type: "range", id: "volume", min: "0", max: "1", step: "0.1", value: String(st.volume), "aria-label": "volume" });
    vol.addEventListener("input", () => { setVolume(Number(vol.value)); play("clack"); });
    return [h("label", {}, mute, h("span", { "data-i18n": "sound", text: t("sound") })), vol];
  }

  // a sound that fails (the page's audio refused, a context gone) is only missed: it never
  // stops the caller, which goes on to draw the table and play the moves queued after it
  const safe = (f) => (...args) => { try { f(...args); } catch (e) { console.error(e); } };
  return { play: safe(play), call: safe(call), onState: safe(onState), controls, st };
})();
