// The chat's voice in the page: see ui/voice.py (the module docstring) for what it does and why.
// One arrow function, run once at page load; __LABELS__ is filled in by ui/voice.py voice_js.
() => {
  if (window.svVoice) return;
  const L = __LABELS__;
  const sv = window.svVoice = {on: sessionStorage.getItem('sv-speaker') === '1', queue: [], busy: false, gen: 0,
    played: 0, spoken: [], track: new Map(), call: false, phase: 'idle', stopCurrent: null, told: new Set(),
    kept: [], lastRec: null};
  const player = document.createElement('audio');
  player.id = 'sv-voice-player';
  player.preload = 'auto';
  document.body.appendChild(player);
  const toast = (text) => {
    let box = document.querySelector('#sv-toast');
    if (!box) {
      box = document.createElement('div'); box.id = 'sv-toast'; box.setAttribute('role', 'alert');
      document.body.appendChild(box);
    }
    box.textContent = text; box.classList.add('sv-toast-show');
    clearTimeout(box._hide); box._hide = setTimeout(() => box.classList.remove('sv-toast-show'), 7000);
  };
  const once = (key, text) => { if (!sv.told.has(key)) { sv.told.add(key); toast(text); } };
  const status = (text) => {
    const el = document.querySelector('#sv-voice-status');
    if (el) { el.textContent = text || ''; el.classList.toggle('sv-voice-status-on', !!text); }
  };
  const post = (path, body, type) => fetch(path, {method: 'POST', credentials: 'same-origin',
      headers: {'Content-Type': type || 'application/json'}, body})
    .then((r) => r.json().catch(() => ({error: r.status + ' ' + r.statusText})))
    .catch((e) => ({error: String(e)}));

  // -- speaking ------------------------------------------------------------------------------------
  const JA = /[\u3040-\u30ff\u3400-\u9fff]/;
  const playUrl = (url) => new Promise((resolve) => {
    const done = () => { player.onended = player.onerror = null; sv.stopCurrent = null; resolve(); };
    sv.stopCurrent = () => { player.pause(); done(); };
    player.onended = () => { sv.played += 1; done(); };
    player.onerror = () => done();
    player.src = url;
    player.play().catch(() => { once('autoplay', L.voice_autoplay); done(); });
  });
  const speakHere = (job) => new Promise((resolve) => {
    const synth = window.speechSynthesis;
    if (!synth || !job.text) { if (!synth) once('nosynth', L.voice_no_browser_voice); resolve(); return; }
    const u = new SpeechSynthesisUtterance(job.text);
    const voices = synth.getVoices();
    const lang = JA.test(job.text) ? 'ja' : 'en';
    const voice = voices.find((v) => v.name === job.voice) || voices.find((v) => (v.lang || '').startsWith(lang));
    if (voice) u.voice = voice;
    u.lang = voice ? voice.lang : (lang === 'ja' ? 'ja-JP' : 'en-US');
    u.rate = Math.min(4, Math.max(0.25, Number(job.speed) || 1));
    u.pitch = Math.min(2, Math.max(0, 1 + (Number(job.pitch) || 0) / 12));
    const done = () => { sv.stopCurrent = null; resolve(); };
    u.onend = () => { sv.played += 1; done(); };
    u.onerror = done;
    sv.stopCurrent = () => { synth.cancel(); done(); };
    synth.speak(u);
  });
  const pump = async () => {
    if (sv.busy) return;
    sv.busy = true;
    try {
      while (sv.queue.length) {
        const gen = sv.gen;
        const job = await sv.queue[0];
        if (gen !== sv.gen) continue;  // stopped meanwhile: the queue is a new one
        sv.queue.shift();
        if (job.error) { once('err:' + job.error, L.voice_failed.replace('{error}', job.error)); continue; }
        status(L.voice_speaking);
        sv.spoken.push(job.said);
        if (sv.spoken.length > 1000) sv.spoken.splice(0, 500);  // what was said, for a look (tests read it)
        if (job.url) await playUrl(job.url);
        else if (job.engine === 'browser') await speakHere(job);
      }
    } finally { sv.busy = false; status(''); idle(); }
  };
  // One request at a time, in order, ahead of playback: the first sentence is made first (the embedded
  // engine is one process), and the next is being made while the one before plays.
  const say = (persona, name, text) => {
    if (!text.replace(/[\s\u3000]+/g, '')) return;
    const job = (sv.chain || Promise.resolve()).then(() => post('voice/say', JSON.stringify({persona, name, text})))
      .then((answer) => ({...answer, said: text}));
    sv.chain = job.catch(() => null);
    sv.queue.push(job);
    pump();
  };
  sv.say = say;
  sv.speakHere = speakHere;
  // The page's own voices, for the ペルソナ tab's list when the engine is `browser` (ui/tabs/persona_voice.py).
  // Asked once now: Chromium fills the list a moment later (`voiceschanged`).
  if (window.speechSynthesis) window.speechSynthesis.getVoices();
  sv.browserVoices = () => JSON.stringify((window.speechSynthesis ? window.speechSynthesis.getVoices() : [])
    .map((v) => ({name: v.name, lang: v.lang || ''})));
  sv.stop = () => {
    sv.gen += 1; sv.queue = []; sv.chain = null;
    if (sv.stopCurrent) sv.stopCurrent();
    if (window.speechSynthesis) window.speechSynthesis.cancel();
    for (const st of sv.track.values()) st.done = Infinity;  // what was still to come of these lines stays unsaid
  };

  // -- the live strip: sentences as they are written -------------------------------------------------
  const END = /[。！？!?…‥]+[」』）)"'”’]*|\n+|[.](?=\s)/g;
  // A reply's first clause is said alone once it has FIRST_CLAUSE_CHARS to say: the first audio comes
  // sooner. The same rule as saiverse/voice/_text.py SentenceSplitter (keep the two alike: a ▶ on the
  // finished line cuts it as the live strip did, and finds each piece in the audio cache).
  const CLAUSE = /[、，]|,(?=\s)/g;
  const FIRST_CLAUSE_CHARS = 5;
  // About what the server's `speakable` leaves of a piece (tags, URLs, code marks, decorations, emoji out).
  const words = (part) => part.replace(/<(user_only|in_heart|think|thinking)\b[^>]*>[\s\S]*?<\/\1\s*>|```[\s\S]*?```/gi, '')
    .replace(/<[^>\n]{1,200}>|(?:https?|ftp|file):\/\/\S+|www\.\S+|[\s*_~|#>`]/g, '')
    .replace(/\p{Extended_Pictographic}|\uFE0F|\u200D/gu, '');
  const HAS_WORDS = /[\p{L}\p{N}]/u;
  // The chat's own marks under a cut or stopped reply (ui/chat.py cut_text, the labels reply_cut_* and
  // cancelled): the window's words, never said.
  const MARKS = /\n*[ \t]*[\u2702\u23f9]\uFE0F?[ \t][^\n]*$/;
  const unmarked = (text) => text.replace(MARKS, '');
  const open = (head) => (head.split('```').length % 2 === 0) ||
    (head.split('<user_only>').length > head.split('</user_only>').length);
  // Where the first end `re` finds in `text` after `from` lies (not inside code or a hidden part, and `ok`), or -1.
  const endOf = (re, text, from, ok) => {
    re.lastIndex = from;
    for (let m; (m = re.exec(text));) {
      const end = m.index + m[0].length;
      if (!open(text.slice(0, end)) && ok(end)) return end;
    }
    return -1;
  };
  // The finished pieces of `text` after `from` (all of it when `final`), where the next one starts, and whether
  // the next is still the reply's first (`first`: nothing with words said yet, so it may end at a comma).
  const pieces = (text, from, final, first) => {
    const parts = [];
    for (;;) {
      let end = endOf(END, text, from, () => true);
      if (first) {
        const start = from;
        const clause = endOf(CLAUSE, text, from, (at) => words(text.slice(start, at)).length >= FIRST_CLAUSE_CHARS);
        if (clause >= 0 && (end < 0 || clause < end)) end = clause;
      }
      if (end < 0) break;
      const part = text.slice(from, end);
      parts.push(part);
      from = end;
      if (HAS_WORDS.test(words(part))) first = false;
    }
    if (final && from < text.length && !open(text)) { parts.push(text.slice(from)); from = text.length; }
    return {parts, next: from, first};
  };
  // A whole line's pieces in the order they are said (▶, a line from elsewhere; tests hold them to the server's).
  sv.cut = (text) => pieces(unmarked(text), 0, true, true).parts;
  const saidAll = (persona, name, text) => sv.cut(text).forEach((part) => say(persona, name, part));
  const take = (st, text, final) => {
    if (text === L.thinking || st.done === Infinity) return;
    text = unmarked(text);
    const {parts, next, first} = pieces(text, Math.min(st.done, text.length), final, st.first);
    if (sv.on) parts.forEach((part) => say(st.persona, st.name, part));
    st.done = final ? Infinity : next;
    st.first = first;
  };
  const watchLive = () => {
    const live = document.querySelector('#chat-live');
    if (!live) { setTimeout(watchLive, 200); return; }
    const read = () => {
      if (live.querySelector('.sv-live-row')) sv.stripAt = performance.now();
      const now = new Set();
      live.querySelectorAll('[data-say]').forEach((row) => {
        const key = row.dataset.say;
        now.add(key);
        let st = sv.track.get(key);
        if (!st) {
          st = {done: 0, first: true, persona: row.dataset.persona || '', name: row.dataset.name || ''};
          sv.track.set(key, st);
        }
        const el = row.querySelector('.sv-live-text');
        st.text = el ? el.textContent : '';
        take(st, st.text, row.dataset.final === '1');
      });
      for (const [key, st] of sv.track) {
        if (now.has(key)) continue;
        take(st, st.text || '', true);  // the send ended (or the line left the strip): say the rest
        sv.track.delete(key);
      }
      idle();
    };
    new MutationObserver(read).observe(live, {childList: true, subtree: true, characterData: true});
  };
  watchLive();

  // -- ▶ on past lines -----------------------------------------------------------------------------
  const HEAD = /^([\s\S]*?)\*\*(.+?)\*\*\n\n/;
  const lineOf = (bubble) => {
    const label = bubble.getAttribute('aria-label') || '';
    const raw = label.slice(label.indexOf(': ') + 2).replace(/\n\n<span class="sv-time">[^<]*<\/span>$/, '');
    const m = raw.match(HEAD);
    return m ? {name: m[2], text: raw.slice(m[0].length)} : null;
  };
  const addPlays = () => {
    document.querySelectorAll('#chat [data-testid="bot"]').forEach((bubble) => {
      const box = bubble.parentElement;
      if (!box || box.querySelector(':scope > .sv-say-line') || !lineOf(bubble)) return;
      const b = document.createElement('button');
      b.type = 'button'; b.className = 'sv-say-line'; b.textContent = '▶';
      b.title = L.voice_play_line; b.setAttribute('aria-label', L.voice_play_line);
      const k = document.createElement('button');  // 💾: this line's voice kept as an audio item
      k.type = 'button'; k.className = 'sv-keep-line'; k.textContent = '💾';
      k.title = L.voice_keep_line; k.setAttribute('aria-label', L.voice_keep_line);
      box.append(b, k);
    });
  };
  // -- 💾: a line's voice or the last recording kept as an audio item of the building shown ------------------
  const building = () => { const h = document.querySelector('#chat-header [data-building-id]');
    return h ? h.dataset.buildingId : ''; };
  const kept = (answer) => {
    toast(answer.error || L.voice_kept.replace('{name}', answer.name));
    if (!answer.error) sv.kept.push(answer);
  };
  const keepLine = async (line) => kept(await post('voice/keep',
    JSON.stringify({persona: '', name: line.name, text: line.text, building: building()})));
  const drawKeep = () => { const b = document.querySelector('#sv-keep-rec'); if (b) b.hidden = !sv.lastRec; };
  const keepRec = async () => {
    const rec = sv.lastRec;
    if (!rec) return;
    sv.lastRec = null; drawKeep();
    kept(await post('voice/keep-recording?building=' + encodeURIComponent(building()) + '&text=' +
      encodeURIComponent(rec.text.slice(0, 2000)), rec.blob, rec.blob.type || 'application/octet-stream'));
  };
  document.addEventListener('click', (ev) => {
    const t = ev.target && ev.target.closest ? ev.target : null;
    if (!t) return;
    const play = t.closest('.sv-say-line');
    if (play) {
      ev.stopPropagation(); ev.preventDefault();
      const line = lineOf(play.parentElement.querySelector('[data-testid="bot"]'));
      if (line) { sv.stop(); saidAll('', line.name, line.text); }
      return;
    }
    const keep = t.closest('.sv-keep-line');
    if (keep) {
      ev.stopPropagation(); ev.preventDefault();
      const line = lineOf(keep.parentElement.querySelector('[data-testid="bot"]'));
      if (line) keepLine(line);
      return;
    }
    if (t.closest('#sv-keep-rec')) { ev.preventDefault(); keepRec(); return; }
    if (t.closest('#chat-stop')) { sv.stop(); if (sv.call) setTimeout(idle, 300); return; }
    if (t.closest('#sv-speaker')) { setSpeaker(!sv.on); return; }
    if (t.closest('#sv-mic')) { ev.preventDefault(); micClick(); return; }
    if (t.closest('#sv-call')) { ev.preventDefault(); callClick(); }
  }, true);
  // Lines that reach the chat without this window's send (autonomy, a schedule, another window) are read too,
  // when they are appended to the building this window goes on showing; a redrawn list (another building,
  // "load earlier", a deletion, a regenerated reply) is read by nobody.
  let seen = null;
  const readArrivals = () => {
    const bubbles = [...document.querySelectorAll('#chat [data-testid="bot"]')];
    const labels = bubbles.map((b) => b.getAttribute('aria-label') || '');
    const head = document.querySelector('#chat-header [data-building-id]');
    const now = {building: head ? head.dataset.buildingId : '', labels};
    const before = seen;
    seen = now;
    if (!before || before.building !== now.building || !sv.on) return;
    if (sv.track.size || performance.now() - (sv.stripAt || -1e9) < 4000) return;  // said from the strip
    const last = before.labels[before.labels.length - 1];
    const at = last === undefined ? -1 : labels.lastIndexOf(last);
    if ((last !== undefined && at < 0) || labels.length <= before.labels.length) return;
    for (const bubble of bubbles.slice(at + 1)) {
      const line = lineOf(bubble);
      if (line) saidAll('', line.name, line.text);
    }
  };
  const watchChat = () => {
    const chat = document.querySelector('#chat');
    if (!chat) { setTimeout(watchChat, 200); return; }
    addPlays();
    readArrivals();
    new MutationObserver(() => { addPlays(); readArrivals(); }).observe(chat, {childList: true, subtree: true});
  };
  watchChat();
  const setSpeaker = (on) => {
    sv.on = on;
    sessionStorage.setItem('sv-speaker', on ? '1' : '0');
    if (!on) sv.stop();
    else post('voice/warm', '{}');  // the embedded engine starts now, not at the first sentence
    drawSpeaker();
  };
  const drawSpeaker = () => {
    const b = document.querySelector('#sv-speaker');
    if (!b) { setTimeout(drawSpeaker, 200); return; }
    b.textContent = sv.on ? '🔊' : '🔈';
    b.title = sv.on ? L.voice_speaker_on : L.voice_speaker_off;
    b.setAttribute('aria-pressed', sv.on ? 'true' : 'false');
  };
  drawSpeaker();
  if (sv.on) post('voice/warm', '{}');  // kept on from before this page load

  // -- listening -----------------------------------------------------------------------------------
  const mic = {rec: null, stream: null, ctx: null, timer: null};
  const box = () => document.querySelector('#chat-input textarea');
  const land = (text, send) => {
    const el = box();
    if (!el || !text) return;
    el.value = el.value.trim() ? el.value.trimEnd() + ' ' + text : text;
    el.dispatchEvent(new Event('input', {bubbles: true}));
    el.focus();
    if (send) setTimeout(() => { const b = document.querySelector('#chat-input [data-testid="submit-button"]');
      if (b) b.click(); }, 150);
  };
  const drawMic = () => {
    const b = document.querySelector('#sv-mic'), c = document.querySelector('#sv-call');
    if (b) { b.classList.toggle('sv-rec', sv.phase === 'listening' && !sv.call);
      b.classList.toggle('sv-wait', sv.phase === 'transcribing'); }
    if (c) { c.classList.toggle('sv-rec', sv.call); c.setAttribute('aria-pressed', sv.call ? 'true' : 'false');
      c.title = sv.call ? L.voice_call_on : L.voice_call_off; }
  };
  const setPhase = (phase) => {
    sv.phase = phase; drawMic();
    status({listening: L.voice_listening, transcribing: L.voice_transcribing,
            waiting: L.voice_call_waiting}[phase] || '');
  };
  const transcribe = async (blob, send) => {
    setPhase('transcribing');
    const answer = await post('voice/listen', blob, blob.type || 'application/octet-stream');
    setPhase(send ? 'waiting' : 'idle');
    if (answer.error) { toast(answer.error); if (send) { sv.call = false; setPhase('idle'); } return; }
    sv.heard = answer.text;
    if (send) { sv.sentAt = performance.now(); sv.liveSeen = false; } else { sv.lastRec = {blob, text: answer.text}; drawKeep(); }
    land(answer.text, send);
  };
  const finish = () => {
    clearInterval(mic.timer); mic.timer = null;
    if (mic.ctx) { mic.ctx.close().catch(() => {}); mic.ctx = null; }
    if (mic.rec && mic.rec.state !== 'inactive') mic.rec.stop();
  };
  const record = async () => {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia || !window.MediaRecorder) {
      sv.call = false; drawMic(); pickFile(); return;
    }
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({audio: {echoCancellation: true, noiseSuppression: true}});
    } catch (e) { sv.call = false; setPhase('idle'); toast(L.voice_mic_denied); return; }
    const type = ['audio/webm;codecs=opus', 'audio/webm', 'audio/mp4', 'audio/ogg'].find(
      (t) => MediaRecorder.isTypeSupported(t));
    const rec = mic.rec = new MediaRecorder(stream, type ? {mimeType: type} : {});
    const chunks = [];
    let heard = false, loud = 0, quiet = 0, waited = 0, floor = 0.01;
    rec.ondataavailable = (e) => { if (e.data && e.data.size) chunks.push(e.data); };
    rec.onstop = () => {
      stream.getTracks().forEach((t) => t.stop());
      mic.rec = null;
      const call = sv.call;
      if (!heard || mic.cancelled) {
        mic.cancelled = false; setPhase('idle');
        if (call) setTimeout(idle, 100); else if (!heard) toast(L.voice_heard_nothing);
        return;
      }
      transcribe(new Blob(chunks, {type: rec.mimeType || type || 'audio/webm'}), call);
    };
    rec.start(250);
    setPhase('listening');
    // Voice activity: the level over a slowly adapting floor; 1.2 s of quiet after speech ends the turn.
    const ctx = mic.ctx = new (window.AudioContext || window.webkitAudioContext)();
    const meter = ctx.createAnalyser();
    meter.fftSize = 2048;
    ctx.createMediaStreamSource(stream).connect(meter);
    const buf = new Float32Array(meter.fftSize);
    mic.timer = setInterval(() => {
      meter.getFloatTimeDomainData(buf);
      let sum = 0;
      for (const x of buf) sum += x * x;
      const level = Math.sqrt(sum / buf.length);
      const speaking = level > Math.max(0.02, floor * 3);
      if (!speaking) floor = floor * 0.95 + level * 0.05;
      if (speaking) { loud += 50; quiet = 0; if (loud >= 200) heard = true; } else if (heard) quiet += 50;
      waited += 50;
      if ((heard && quiet >= 1200) || waited >= 60000 || (!heard && waited >= (sv.call ? 30000 : 10000))) finish();
    }, 50);
  };
  const pickFile = () => {
    let input = document.querySelector('#sv-mic-file');
    if (!input) {
      input = document.createElement('input');
      input.type = 'file'; input.id = 'sv-mic-file'; input.accept = 'audio/*'; input.setAttribute('capture', '');
      input.style.display = 'none';
      input.addEventListener('change', () => { const f = input.files && input.files[0]; input.value = '';
        if (f) transcribe(f, false); });
      document.body.appendChild(input);
      once('nomic', L.voice_no_mic);
    }
    input.click();
  };
  // Before recording: is anyone listening? (Asked each time: 設定 may have changed meanwhile.)
  const ready = async () => {
    const answer = await fetch('voice/listen', {credentials: 'same-origin'}).then((r) => r.json()).catch(() => null);
    if (answer && !answer.ready) toast(answer.line);
    return !answer || answer.ready;
  };
  const micClick = async () => {
    if (sv.phase === 'listening' && !sv.call) { finish(); return; }
    if (sv.phase !== 'idle' || !(await ready())) return;
    record();
  };
  const callClick = async () => {
    if (!sv.call && !(await ready())) return;
    sv.call = !sv.call;
    drawMic();
    if (sv.call) { if (!sv.on) setSpeaker(true); if (sv.phase === 'idle') record(); }
    else { mic.cancelled = true; finish(); sv.stop(); setPhase('idle'); }
  };
  // Call mode listens again once the reply has been written and spoken.
  const idle = () => {
    if (!sv.call || sv.phase === 'listening' || sv.phase === 'transcribing') return;
    const live = document.querySelector('#chat-live');
    const writing = live && live.querySelector('.sv-live-row');
    if (writing) sv.liveSeen = true;
    const since = performance.now() - (sv.sentAt || 0);
    if (sv.phase === 'waiting' && !sv.liveSeen && since < 15000) { setTimeout(idle, 500); return; }
    if (writing || sv.busy || sv.queue.length) return;
    setPhase('idle');
    setTimeout(() => { if (sv.call && sv.phase === 'idle' && !sv.busy) record(); }, 400);
  };
  sv.idle = idle;
}
