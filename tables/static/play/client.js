"use strict";
// The player client: REST for reads and actions, the table's WebSocket for live updates (with resume after a
// reconnect). The table is read over REST at start (and after a gap in the events); after that every change
// arrives on the socket as its events and then the table view itself (v1.3 "table" message), which is rendered.
// Everything shown comes from the server's views for this viewer: a card the viewer may not see arrives as null,
// every total and result is the server's. The words come from the page (the catalogues).
// Signed in with a password (or registered), the player's token is in an HttpOnly cookie that no script reads
// (set by /play/session; every request that changes something carries the page's CSRF token); a pasted API token
// is held in this variable only, for this page: a reload or another page asks for it again (docs/client.md).
const config = JSON.parse(document.getElementById("play-config").textContent);
const W = config.words;
const SEED_CHOSEN_KEY = "casino-seed-chosen";
const AMOUNT_ACTIONS = new Set(["bet", "raise", "split", "set_stake"]);
const KEYS = { c: "hit", s: "stand", b: "bet" };
const MOVES = new Set(["bet", "hit", "hit_face_down", "stand", "raise", "split", "assign"]);
const SOUND_KEY = "casino-sound";  // "on" when the player turned the sounds on (off by default); not a credential
const PAGE_TITLE = document.title;
const LOBBY_REFRESH_MS = 5000;
const RETRY_FIRST_MS = 500;  // a failed table read is tried again after this, then twice as long each time
const RETRY_MAX_MS = 8000;
const READ_TIMEOUT_MS = 10000;
const QUIET_RESUME_MS = 10000;  // a live socket silent this long is asked to resume (see connect)
let heardAt = Date.now();  // a table read with no answer by then is given up and tried again
let token = null;  // a pasted API token (memory only); else the HttpOnly cookie signs the requests in
let me = null;
let table = null;
let lastSeq = 0;
let socket = null;
let loading = null;
let stopped = false;
let countdownTimer = null;
let lobbyTimer = null;
let seenCommitment = null;

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value; else node.setAttribute(key, value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
};
const fmt = (template, params) => template.replace(/%\((\w+)\)s/g, (_, name) => String(params[name] ?? ""));

function headers() {
  const sent = { "Content-Type": "application/json", "Accept-Language": config.language, "X-CSRFToken": config.csrf };
  if (token) sent.Authorization = "Token " + token;
  return sent;
}

async function api(method, path, body, timeoutMs) {
  // timeoutMs (reads only: a read can be asked again, an action must not be guessed at): give up on an answer
  // that does not come, so the caller's retry is not stuck behind it. A path of the pages themselves (/play/...)
  // is taken as it is, any other is the API's.
  const signal = timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined;
  const url = path.startsWith("/play/") ? path : config.api + path;
  const response = await fetch(url, { method, headers: headers(), body: body ? JSON.stringify(body) : undefined, signal, credentials: "same-origin" });
  let data = null;
  if (response.status !== 204) {
    try { data = await response.json(); } catch (error) { data = null; }
  }
  return { status: response.status, data };
}

function errorText(answer) {
  // the API's own message, as given (sign-in lockouts and every refusal say why in the caller's language)
  const error = answer.data && answer.data.error;
  return error ? error.message : String(answer.status);
}

// --- announcements (screen readers) ---------------------------------------------------------------------------

function announce(text) {
  const region = $("announce");
  region.append(el("p", {}, text));
  while (region.childElementCount > 6) region.firstElementChild.remove();
}

// --- cards ------------------------------------------------------------------------------------------------------

function cardName(code) {
  if (!code) return W.hidden_card;
  const rank = code.slice(0, -1), suit = code.slice(-1);
  const name = fmt(W.card_name, { rank: W.ranks[rank] || rank, suit: W.suits[suit] || suit });
  return code === "12O" && table && table.rules && table.rules.matta ? name + " \u00b7 " + W.matta : name;
}

function cardNode(card, mine) {
  const code = card.code;
  const ownDown = code !== null && !card.face_up && mine;
  const label = cardName(code) + (ownDown ? " (" + W.own_face_down + ")" : "");
  const node = el("span", { class: "card" + (ownDown ? " down-mine" : "") + (code === null ? " back" : ""), role: "img",
                            "aria-label": label, title: label, "data-code": code || "",
                            "data-face-up": String(card.face_up) });
  node.innerHTML = window.SevenHalfCards.svg(code);  // built only from a checked card code
  return node;
}

function totalText(hand) {
  if (hand.total === null || hand.total === undefined) return W.total + " ?";
  const category = hand.category && hand.category !== "points" ? " \u00b7 " + (W.categories[hand.category] || hand.category) : "";
  return W.total + " " + hand.total + category;
}

// --- the table ----------------------------------------------------------------------------------------------------

function personName(seat, username) {
  // the house holds no seat; a seated player whose name the view no longer gives (he left) is "the player at seat N"
  if (seat === null || seat === undefined) return W.house;
  if (me && username === me.username) return W.you;
  return username || fmt(W.player_at_seat, { seat });
}

function plural(key, count, params = {}) {
  // Django's plural forms of the sentence, picked by the number's CLDR category (tables/live/words.py)
  const forms = W.plurals[key];
  const category = new Intl.PluralRules(config.language).select(count);
  return fmt(forms[category] || forms.other, { ...params, count });
}

function renderTable(view) {
  // the whole table screen from one table view (GET /tables/{id}, or one pushed by the socket)
  const previous = table;
  table = view;
  render(previous);
}

function render(previous) {
  $("game").dataset.version = String(table.version);
  $("table-name").textContent = table.name ? "\u00b7 " + table.name : "";
  $("table-card").textContent = [W.presets[table.preset] || table.preset, W.banks[table.bank] || table.bank,
    fmt(W.limits, { min: table.min_bet, max: table.max_bet })].join(" \u00b7 ");
  $("balance").textContent = table.you.balance;
  $("seat").textContent = table.you.seat === null ? W.seat_none : table.you.seat;
  $("phase").textContent = W.phases[table.phase] || table.phase;
  $("phase").dataset.phase = table.phase;
  $("seats").replaceChildren(el("ul", {}, ...table.seats.map((s) => el("li", { "data-seat": String(s.seat) },
    s.seat + ": " + personName(s.seat, s.username) + (s.is_banker ? " (" + W.banker + ")" : "") + (s.sitting_out ? " (" + W.sitting_out + ")" : "")))));
  renderHand(previous);
  renderTurn();
  renderActions();
  renderReserve();
  renderBanner();
  renderLastHand();
  renderFairness();
  renderWorth();
  if (previous) announceChanges(previous, table);
  turnCue(previous);
}

// --- turn cue and sounds ------------------------------------------------------------------------------------------

let audio = null;

function soundOn() { return localStorage.getItem(SOUND_KEY) === "on"; }

function renderSoundButton() {
  const button = $("sound");
  button.setAttribute("aria-pressed", String(soundOn()));
  button.textContent = soundOn() ? W.sound_on : W.sound_off;
}

function beep(frequency, ms) {
  // a tiny tone made in the page (WebAudio): no sound file to download
  if (!soundOn()) return;
  audio = audio || new AudioContext();
  const tone = audio.createOscillator(), gain = audio.createGain();
  tone.frequency.value = frequency;
  gain.gain.value = 0.06;
  tone.connect(gain).connect(audio.destination);
  tone.start();
  tone.stop(audio.currentTime + ms / 1000);
}

function myMove(view) { return !!view && view.you.legal_actions.some((action) => MOVES.has(action)); }

function turnCue(previous) {
  // the player's turn: the tab's title says so, the first action takes the focus (unless he is typing), a tone
  const now = myMove(table);
  document.title = now ? W.turn_title + " \u00b7 " + PAGE_TITLE : PAGE_TITLE;
  if (now && !myMove(previous)) {
    const typing = /^(INPUT|SELECT|TEXTAREA)$/.test((document.activeElement || {}).tagName || "");
    const first = document.querySelector("#actions button");
    if (first && !typing) first.focus({ preventScroll: true });
    beep(880, 120);
  } else if (previous && $("hand").querySelector(".card.deal")) {
    beep(520, 40);
  }
}

function percent(text) {
  // "0.9731" -> "97.31%" from the API's digits (never through a float, never localised): every language shows
  // the same figure
  if (text === "0") return "0.00%";
  const negative = text.startsWith("-");
  const [whole, part = ""] = text.replace("-", "").split(".");
  const digits = (whole + (part + "0000").slice(0, 4)).replace(/^0+(?=\d{3})/, "");
  return (negative ? "-" : "") + digits.slice(0, -2) + "." + digits.slice(-2) + "%";
}

function renderWorth() {
  // the table's rtp (API.md v1.3): the record the API, the lobby and the admin show
  const rtp = table.rtp;
  const best = $("rtp-best-play"), flat = $("rtp-flat");
  best.dataset.value = rtp.best_play || "";
  best.textContent = rtp.best_play === null ? W.rtp_player_bank : percent(rtp.best_play);
  flat.dataset.value = rtp.flat || "";
  if (rtp.flat === null) flat.textContent = W.rtp_computing;
  else if (rtp.method === "simulated") flat.textContent = fmt(W.rtp_margin, { rtp: percent(rtp.flat), margin: percent(rtp.margin) });
  else flat.textContent = percent(rtp.flat);
  $("rtp-note").textContent = rtp.method === "exact" ? W.rtp_exact : W.rtp_simulated;
}

function cardKeys(view) {
  // every card of the hand in play by its place ("hand:seat:hand index:position") -> its code (null: a back)
  const keys = new Map();
  if (!view || !view.hand) return keys;
  for (const p of view.hand.participants) {
    for (const h of p.hands) h.cards.forEach((c, i) => keys.set(view.hand.number + ":" + p.seat + ":" + h.index + ":" + i, c.code));
  }
  return keys;
}

function renderHand(previous) {
  // the felt: the banker's place apart at the top, the punters around it, each hand's cards, stake and total
  const hand = table.hand;
  const before = cardKeys(previous);
  const title = el("h3", { id: "hand-title" });
  const bankerPlace = el("div", { class: "banker-place" });
  const punters = el("div", { class: "punters" });
  if (hand) {
    title.textContent = fmt(W.hand_n, { number: hand.number }) + " \u00b7 " + (W.phases[hand.phase] || hand.phase);
    const turn = hand.turn;
    for (const p of hand.participants) {
      const mine = me && p.username === me.username;
      const isTurn = turn && turn.seat !== null && turn.seat === p.seat && turn.kind !== "bets";
      const name = personName(p.seat, p.username);
      const box = el("div", { class: "participant" + (mine ? " me" : "") + (isTurn ? " turn" : ""),
                              "data-username": p.username || "house", "data-seat": String(p.seat), "data-role": p.role },
                     el("h4", {}, name + " \u00b7 " + (p.role === "banker" ? W.banker : W.punter)));
      for (const h of p.hands) {
        const label = name + (p.hands.length > 1 ? " \u00b7 " + fmt(W.hand_index, { index: h.index }) : "");
        box.append(el("div", { class: "cards", "data-hand": String(h.index), role: "group", "aria-label": label },
                      ...h.cards.map((c, i) => {
                        const n = cardNode(c, mine);
                        const key = hand.number + ":" + p.seat + ":" + h.index + ":" + i;
                        if (!before.has(key)) n.classList.add("deal");
                        else if (before.get(key) === null && c.code !== null) n.classList.add("flip");
                        return n;
                      })));
        const line = el("div", { class: "hand-line", "data-total-hp": String(h.total_half_points ?? ""),
                                 "data-total": h.total ?? "", "data-status": h.status });
        if (h.bet) line.append(el("span", { class: "chip stake", title: W.bet_label }, W.bet_label + " " + h.bet), " ");
        if (h.cards.length) line.append(el("span", { class: "total" }, totalText(h)));
        box.append(line);
      }
      (p.role === "banker" ? bankerPlace : punters).append(box);
    }
  }
  $("hand").replaceChildren(title, bankerPlace, punters);
}

function signed(n) { return n > 0 ? "+" + n : String(n); }

function currentDeadline() {
  const hand = table.hand;
  if (!hand) return null;
  return hand.betting_deadline || (hand.turn ? hand.turn.deadline : null);
}

function turnText() {
  const hand = table.hand;
  if (!hand || !hand.turn) return W.phases[table.phase] || table.phase;  // nobody's turn: what the table is doing
  const turn = hand.turn;
  if (turn.kind === "bets") return table.you.seat !== null && !myParticipant(table.hand) ? W.next_hand : W.bets_open;
  if (turn.seat !== null && turn.seat === table.you.seat) return W.your_turn;
  const seat = table.seats.find((s) => s.seat === turn.seat);
  return fmt(W.turn_of, { name: personName(turn.seat, seat ? seat.username : null) });
}

function renderTurn() {
  $("turn").textContent = turnText();
  const deadline = currentDeadline();
  const countdown = $("countdown");
  countdown.dataset.deadline = deadline || "";
  if (countdownTimer) clearInterval(countdownTimer);
  const tick = () => {
    countdown.hidden = !deadline;
    if (!deadline) { countdown.textContent = ""; countdown.classList.remove("urgent"); return; }
    const seconds = Math.max(0, Math.ceil((Date.parse(deadline) - Date.now()) / 1000));
    countdown.textContent = fmt(W.seconds_left, { seconds });
    countdown.classList.toggle("urgent", seconds <= 5);
  };
  tick();
  if (deadline) countdownTimer = setInterval(tick, 1000);
}

async function sitDown() {
  // the seed he sits down with goes into his own record with the version of his seat's event (seeds.js)
  const answer = await api("POST", "/tables/" + config.table + "/seats", {});
  const seated = ((answer.data && answer.data.events) || []).find((e) => e.type === "SeatTaken" && e.data.player_id === String(me.id));
  if (seated) recordMySeed(me.id, seated.data.client_seed, [{ table: config.table, version: seated.seq }]);
  return answer;
}

function myParticipant(hand) {
  return hand ? hand.participants.find((p) => me && p.username === me.username) || null : null;
}

function actionLabel(action) {
  // "Sit in" while not sitting out means "deal me in" (RULES.md §2: a table that waits after a hand nobody entered
  // opens the next when a seated punter sits in); said so, "Sit out" and "Sit in" are never offered together
  const seat = table.seats.find((s) => s.seat === table.you.seat);
  if (action === "sit_in" && seat && !seat.sitting_out) return W.deal_me_in;
  return W.actions[action] || action;
}

function renderReserve() {
  // why the balance dropped by more than the bet: the chips a stake holds until the hand ends (RULES.md §7)
  const note = $("reserve-note");
  const hand = table.hand;
  const mine = myParticipant(hand);
  // a punter dealt in before betting (at_turn_after_peek, after_deal_all) is committed to the minimum (or the
  // bank's stake) from the deal on, with its reserve, while his bet still reads 0 (RULES.md §3.2)
  const committed = table.rules.bet_timing === "before_deal" ? 0 : (table.fixed_stake || table.min_bet);
  const stakeOf = (h) => Math.max(h.bet || 0, h.index === 0 ? committed : 0);
  const bets = mine ? mine.hands.map(stakeOf).reduce((a, b) => a + b, 0) : 0;
  const others = hand ? hand.participants.filter((p) => p.role === "punter").flatMap((p) => p.hands.map(stakeOf)) : [];
  const staked = others.reduce((a, b) => a + b, 0);
  let text = "";
  if (mine && mine.role === "banker" && staked && config.reserve) {
    text = plural("held_banker", staked * config.reserve.banker, { times: config.reserve.banker, bet: staked });
  } else if (mine && mine.role === "punter" && bets && config.reserve && config.reserve.punter > 1) {
    text = plural("held_punter", bets * config.reserve.punter, { times: config.reserve.punter, bet: bets });
  }
  note.textContent = text;
  note.hidden = !text;
}

function isTie(row, banker) {
  // the punter's hand ranks as the banker's (same category and total): RULES.md §5, decided by the tie rule
  return row.category !== "bust" && banker.total_half_points !== null && row.total_half_points === banker.total_half_points
    && row.category === banker.category;
}

function resultSentence(row, banker) {
  // one whole sentence per outcome, built by each language's catalogue (no words glued together)
  const mine = me && row.username === me.username;
  const name = personName(row.seat, row.username);
  const count = Math.abs(row.net);
  const tie = row.tie !== undefined ? row.tie : isTie(row, banker);  // a hand history says it (results[].tie)
  if (row.outcome === "push") {
    if (mine) return tie ? W.you_tie_push : W.you_push;
    return fmt(tie ? W.other_tie_push : W.other_push, { name });
  }
  const key = row.outcome === "win" ? "win" : (tie ? "tie_lose" : "lose");
  return mine ? plural("you_" + key, count) : plural("other_" + key, count, { name });
}

function renderBanner() {
  // how the last hand ended, in front, until the next hand deals its first card
  const banner = $("result-banner");
  const last = table.last_hand;
  const hand = table.hand;
  const dealt = hand && hand.number > (last ? last.number : 0) && hand.participants.some((p) => p.hands.some((h) => h.cards.length));
  if (!last || dealt) { banner.hidden = true; banner.dataset.number = ""; return; }
  banner.hidden = false;
  banner.dataset.number = String(last.number);
  const lines = [];
  let net = null;
  let tie = false;
  if (last.status === "abandoned") lines.push(W.abandoned);
  else if (me && last.banker.username === me.username) {
    net = -last.results.reduce((sum, r) => sum + r.net, 0);
    lines.push(net > 0 ? plural("bank_win", net) : net < 0 ? plural("bank_lose", -net) : W.bank_even);
  } else {
    for (const row of last.results) {
      if (!me || row.username !== me.username) continue;
      net = (net || 0) + row.net;
      lines.push(resultSentence(row, last.banker));
    }
  }
  for (const row of last.results) tie = tie || isTie(row, last.banker);
  $("result-title").textContent = fmt(W.hand_over, { number: last.number });
  $("result-lines").replaceChildren(...lines.map((line) => el("p", { class: "result-line" }, line)));
  $("result-net").textContent = net === null ? "" : signed(net);
  $("result-net").dataset.net = net === null ? "" : String(net);
  $("result-net").className = "chip " + (net > 0 ? "up" : net < 0 ? "down" : "even");
  $("result-net").hidden = net === null;
  $("result-rule").textContent = tie ? (table.rules.tie_rule === "push" ? W.tie_rule_push : W.tie_rule_banker) : "";
}

function renderActions() {
  const buttons = [];
  if (table.you.seat === null) buttons.push(actionButton("sit", () => sitDown()));
  for (const action of table.you.legal_actions) buttons.push(actionButton(action, () => act(action)));
  if (table.you.seat !== null) buttons.push(actionButton("leave", () => api("DELETE", "/tables/" + config.table + "/seats/me")));
  // a re-render keeps the focus on the same action (the buttons are new ones)
  const focused = document.activeElement && document.activeElement.closest("#actions") ? document.activeElement.dataset.action : null;
  $("actions").replaceChildren(...buttons);
  const again = focused && buttons.find((button) => button.dataset.action === focused);
  if (again) again.focus({ preventScroll: true });
  if (!$("amount").value) $("amount").value = table.fixed_stake || table.min_bet;
  $("amount-choice").hidden = !table.you.legal_actions.some((action) => AMOUNT_ACTIONS.has(action));
  const indexes = new Set();
  for (const list of Object.values(table.you.legal_hands || {})) for (const i of list) indexes.add(i);
  const select = $("hand-index");
  const chosen = select.value;
  const turnHand = table.hand && table.hand.turn && table.hand.turn.seat === table.you.seat ? table.hand.turn.hand : null;
  select.replaceChildren(...[...indexes].sort((a, b) => a - b).map((i) => el("option", { value: String(i) }, fmt(W.hand_index, { index: i }))));
  $("hand-choice").hidden = indexes.size < 2;  // a choice only where there is one (a split)
  if (indexes.has(Number(chosen)) && chosen !== "") select.value = chosen;
  else if (turnHand !== null && indexes.has(turnHand)) select.value = String(turnHand);
}

function actionButton(action, run) {
  const button = el("button", { type: "button", "data-action": action }, actionLabel(action));
  button.addEventListener("click", async () => {
    button.disabled = true;
    const answer = await run();
    $("action-error").textContent = answer.status >= 400 ? errorText(answer) : "";
    if (answer.status < 400 && answer.data && answer.data.table) show(answer.data.table);  // the answer's view
    else await load();
  });
  return button;
}

async function act(action, retried) {
  const body = { action, expected_version: table.version };
  if (AMOUNT_ACTIONS.has(action)) body.amount = Number($("amount").value);
  const hands = (table.you.legal_hands || {})[action];
  if (hands && $("hand-index").value !== "" && hands.includes(Number($("hand-index").value))) body.hand = Number($("hand-index").value);
  const turn = table.hand && table.hand.turn ? JSON.stringify(table.hand.turn) : "";
  const answer = await api("POST", "/tables/" + config.table + "/actions", body);
  if (!retried && answer.status === 409 && answer.data && answer.data.error.code === "stale_version") {
    // something else happened first (a seed set, a card to another hand): act again only if the view after it
    // still offers this action on the same turn
    await load();
    const again = table.you.legal_actions.includes(action) && (table.hand && table.hand.turn ? JSON.stringify(table.hand.turn) : "") === turn;
    if (again) return act(action, true);
  }
  return answer;
}

function renderLastHand() {
  const last = table.last_hand;
  const section = $("last-hand");
  if (!last) { section.hidden = true; return; }
  section.hidden = false;
  section.dataset.number = String(last.number);
  $("last-hand-title").textContent = fmt(W.last_hand_title, { number: last.number });
  const body = el("div");
  if (last.status === "abandoned") body.append(el("p", {}, W.abandoned));
  const banker = last.banker;
  body.append(el("div", { class: "last-banker", "data-total-hp": String(banker.total_half_points ?? "") },
    el("h4", {}, W.banker + ": " + personName(banker.seat, banker.username) + (banker.total ? " \u00b7 " + totalText(banker) : "")),
    el("div", { class: "cards", role: "group" }, ...banker.cards.map((code) => cardNode({ code, face_up: true }, false)))));
  const rows = el("ul", { class: "last-results" });
  for (const r of last.results) {
    rows.append(el("li", { "data-username": r.username || "", "data-outcome": r.outcome, "data-net": String(r.net),
                           "data-total-hp": String(r.total_half_points) },
      el("span", { class: "result-text" }, resultSentence(r, banker)), " ",
      el("span", { class: "chip " + (r.net > 0 ? "up" : r.net < 0 ? "down" : "even") }, signed(r.net)), " ",
      el("span", { class: "total" }, totalText(r)),
      el("span", { class: "cards", role: "group" }, ...r.cards.map((code) => cardNode({ code, face_up: true }, false)))));
  }
  body.append(rows);
  $("last-hand-body").replaceChildren(body);
}

function announceChanges(before, after) {
  const seen = new Set();
  const codes = (t) => {
    const out = [];
    if (!t.hand) return out;
    for (const p of t.hand.participants) for (const h of p.hands) h.cards.forEach((c, i) => out.push([t.hand.number + ":" + p.seat + ":" + h.index + ":" + i, personName(p.seat, p.username), c.code]));
    return out;
  };
  for (const [key, , code] of codes(before)) if (code) seen.add(key + code);
  for (const [key, name, code] of codes(after)) {
    if (code && !seen.has(key + code)) announce(fmt(W.dealt, { name, card: cardName(code) }));
  }
  if (turnText() !== turnTextOf(before)) announce(turnText());
  const last = after.last_hand;
  if (last && (!before.last_hand || before.last_hand.number !== last.number)) {
    announce(fmt(W.last_hand_title, { number: last.number }));
    if (last.banker.total) announce(fmt(W.banker_line, { name: personName(last.banker.seat, last.banker.username), total: totalText(last.banker) }));
    for (const r of last.results) announce(resultSentence(r, last.banker));
  }
}

function turnTextOf(other) { const current = table; table = other; const text = turnText(); table = current; return text; }

// --- fairness -----------------------------------------------------------------------------------------------------

function randomSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function setSeed(seed, chosen) {
  const answer = await api("PUT", "/me/client-seed", { client_seed: seed });
  if (answer.status >= 400) { $("seed-message").textContent = errorText(answer); return false; }
  me.client_seed = seed;
  recordMySeed(me.id, seed, answer.data.tables);
  if (chosen) sessionStorage.setItem(SEED_CHOSEN_KEY, "1");
  $("client-seed").textContent = seed;
  $("seed-message").textContent = fmt(W.seed_set, { seed });
  return true;
}

function renderFairness() {
  $("hand-commitment").textContent = table.hand ? table.hand.seed_commitment : "\u2013";
  $("next-commitment").textContent = table.next_seed_commitment || "\u2013";
  $("client-seed").textContent = me.client_seed || "";
  $("seed-auto").checked = !sessionStorage.getItem(SEED_CHOSEN_KEY);
  const commitment = table.next_seed_commitment;
  if (commitment && commitment !== seenCommitment) {
    seenCommitment = commitment;
    // a fresh random client seed for each commitment this page sees, unless the player chose his own: set
    // after the commitment was published, it makes a deck the casino could not have chosen
    if (!sessionStorage.getItem(SEED_CHOSEN_KEY)) {
      setSeed(randomSeed(), false).then((ok) => { if (ok) { $("seed-message").textContent = W.new_commitment; document.body.dataset.seedFor = commitment; } });
    } else {
      document.body.dataset.seedFor = commitment;
    }
  }
}

// --- loading and live updates ---------------------------------------------------------------------------------

async function load() {
  // one table view at a time; a request while one is in flight asks for one more afterwards. A read that fails
  // (the network, a busy or restarting server: no answer within READ_TIMEOUT_MS, 429, 5xx) is tried again after a pause that grows to
  // RETRY_MAX_MS, so the page never stays behind the table waiting for an event that already came.
  if (stopped) return undefined;
  if (loading) { loading.again = true; return loading.done; }
  loading = { again: false };
  loading.done = (async () => {
    let pause = RETRY_FIRST_MS;
    try {
      do {
        loading.again = false;
        let answer;
        try { answer = await api("GET", "/tables/" + config.table, undefined, READ_TIMEOUT_MS); } catch (error) { answer = { status: 0, data: null }; }
        if (answer.status === 200) { show(answer.data); pause = RETRY_FIRST_MS; }
        else if (answer.status === 404) { noSuchTable(); break; }
        else if (answer.status === 401) { signOut(W.token_refused); break; }
        else {
          loading.again = true;
          await new Promise((resolve) => setTimeout(resolve, pause));
          pause = Math.min(pause * 2, RETRY_MAX_MS);
        }
      } while (loading.again && !stopped);
    } finally {
      loading = null;
    }
  })();
  return loading.done;
}

function show(view) {
  // a view of the table (pushed by the socket, an action's answer, a read): the page never goes back to an older
  // one, and does not draw the same version twice (an action's answer, then the socket's view of that version)
  if (stopped || (table && view.version <= table.version)) return;  // (stopped: the page follows the table no more)
  renderTable(view);
}

function noSuchTable() {
  stopped = true;
  if (socket) socket.close();
  $("game").hidden = true;
  $("no-table").hidden = false;
  $("no-table").textContent = W.no_such_table;
  setStatus("closed", W.no_such_table);
}

function setStatus(ws, text) { $("status").dataset.ws = ws; $("status").textContent = text; }

function log(events) {
  for (const event of events) $("log").prepend(el("div", { "data-seq": String(event.seq) }, event.seq + " " + event.type));
}

// a socket that has said nothing for QUIET_RESUME_MS is asked to resume from the last seq seen: delivery that
// stalled on the server's side (an announcement lost) catches up without waiting for the next change
setInterval(() => {
  if (socket && socket.readyState === WebSocket.OPEN && lastSeq && Date.now() - heardAt > QUIET_RESUME_MS) {
    heardAt = Date.now();
    socket.send(JSON.stringify({ type: "resume", after: lastSeq }));
  }
}, QUIET_RESUME_MS / 2);

function connect() {
  if (stopped) return;
  const url = config.ws_base
    ? config.ws_base + "/ws/v1/tables/" + config.table
    : (location.protocol === "https:" ? "wss://" : "ws://") + location.hostname + ":" + config.live_port
      + "/ws/v1/tables/" + config.table;
  socket = new WebSocket(url);
  // signed in by the cookie, the server knows the player at once; a pasted token is sent as the first frame
  socket.addEventListener("open", () => { if (token) socket.send(JSON.stringify({ type: "auth", token })); });
  socket.addEventListener("message", (message) => {
    heardAt = Date.now();
    const data = JSON.parse(message.data);
    if (data.type === "table") { show(data.table); return; }  // v1.3: the view after the events, for this viewer
    if (data.type !== "events") return;
    if ($("status").dataset.ws !== "open") {
      setStatus("open", W.live);
      if (!lastSeq && table) lastSeq = table.version;  // the page shows the table read at start: from there on
      if (lastSeq) socket.send(JSON.stringify({ type: "resume", after: lastSeq }));  // what we missed meanwhile
      else lastSeq = data.last_seq;
    }
    if (data.events.length) {
      const gap = lastSeq && data.events[0].seq > lastSeq + 1;  // events we never got: read the table again
      log(data.events);
      lastSeq = Math.max(lastSeq, data.last_seq);
      if (gap) load();
    }
  });
  socket.addEventListener("close", (event) => {
    if (stopped) return;
    $("status").dataset.ws = "closed";
    if (event.code === 4401) { signOut(W.token_refused); return; }
    if (event.code === 4404) { noSuchTable(); return; }
    setStatus("closed", W.reconnecting + " (" + event.code + ")");
    setTimeout(connect, event.code === 4429 ? 5000 : 1000);
  });
}

// --- lobby and history ------------------------------------------------------------------------------------------

async function loadLobby() {
  const answer = await api("GET", "/tables");
  if (answer.status !== 200) return;
  const rows = answer.data.results || answer.data;
  $("tables").querySelector("tbody").replaceChildren(...rows.map((t) => el("tr", { "data-table": String(t.id) },
    el("td", {}, el("a", { href: config.table_url.replace("{id}", t.id), "aria-label": fmt(W.open_table, { name: t.name }) }, t.name)),
    el("td", {}, W.presets[t.preset] || t.preset), el("td", {}, W.banks[t.bank] || t.bank),
    el("td", {}, fmt(W.limits, { min: t.min_bet, max: t.max_bet })),
    el("td", {}, fmt(W.players, { taken: t.seats_taken, max: t.max_seats })),
    el("td", {}, W.phases[t.phase] || t.phase))));
}

const REPLAYED_HANDS = 10;  // the newest hands whose cards, outcome and replay the page reads (GET /hands/{id})
const when = (iso) => new Intl.DateTimeFormat(config.language, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));

function replaySteps(history) {
  // the hand as it happened, one card at a time (deals in the order they left the deck), then how it ended
  const steps = [];
  const shown = new Map();  // seat ("house" for the house) -> hand index -> codes
  const name = (seat) => personName(seat, (history.participants.find((p) => p.seat === seat) || {}).username);
  for (const deal of history.deals) {
    const key = deal.to_seat === null ? "house" : String(deal.to_seat);
    if (!shown.has(key)) shown.set(key, new Map());
    const hands = shown.get(key);
    hands.set(deal.hand, [...(hands.get(deal.hand) || []), deal.card]);
    steps.push({ text: fmt(W.dealt, { name: name(deal.to_seat), card: cardName(deal.card) }),
                 cards: new Map([...shown].map(([k, v]) => [k, new Map(v)])) });
  }
  return { steps, name };
}

function replayNode(history) {
  // step by step: each card dealt, with every hand's cards so far; "Previous" and "Next" move through them
  const { steps, name } = replaySteps(history);
  const box = el("div", { class: "replay", "data-steps": String(steps.length) });
  const line = el("p", { class: "replay-line", "aria-live": "polite" });
  const table = el("div", { class: "replay-cards" });
  let at = steps.length ? 0 : -1;
  const draw = () => {
    const step = steps[at];
    box.dataset.step = String(at + 1);
    line.textContent = step ? fmt(W.step_of, { step: at + 1, steps: steps.length }) + " \u00b7 " + step.text : "";
    table.replaceChildren(...(step ? [...step.cards] : []).map(([seat, hands]) => el("div", { class: "replay-seat" },
      el("h5", {}, seat === "house" ? W.house : name(Number(seat))),
      ...[...hands].map(([, codes]) => el("div", { class: "cards" }, ...codes.map((code) => cardNode({ code, face_up: true }, false)))))));
    back.disabled = at <= 0;
    next.disabled = at >= steps.length - 1;
  };
  const back = el("button", { type: "button", class: "small", "data-replay": "back" }, W.previous_step);
  const next = el("button", { type: "button", class: "small", "data-replay": "next" }, W.next_step);
  back.addEventListener("click", () => { at = Math.max(0, at - 1); draw(); });
  next.addEventListener("click", () => { at = Math.min(steps.length - 1, at + 1); draw(); });
  box.append(back, next, line, table);
  draw();
  return box;
}

function handSummary(row, history) {
  // my cards and each result of mine in the hand (whole sentences, as at the table)
  const mine = history.participants.find((p) => p.seat === row.seat && (row.seat !== null || p.role === row.role));
  const node = el("div", { class: "hand-summary" });
  if (!mine) return node;
  for (const h of mine.hands) node.append(el("div", { class: "cards", role: "group", "aria-label": W.you }, ...h.cards.map((code) => cardNode({ code, face_up: true }, false))));
  for (const r of history.results || []) {
    if (r.seat === row.seat) node.append(el("p", { class: "result-text", "data-outcome": r.outcome }, resultSentence({ ...r, username: me.username }, null)));
  }
  return node;
}

function historyRow(row, history) {
  const ended = row.status !== "in_play";
  const result = el("span", { class: "verify-result", role: "status" });
  const item = el("li", { id: "hand-" + row.id, "data-hand": String(row.id), "data-status": row.status },
    el("h3", {}, el("a", { href: config.history_url + "#hand-" + row.id }, fmt(W.hand_n, { number: row.number })),
      " \u00b7 " + fmt(W.table_n, { id: row.table })),
    el("p", { class: "hand-facts" }, el("time", { datetime: row.opened_at }, when(row.opened_at)), " \u00b7 ",
      (row.role === "banker" ? W.banker : W.punter), " \u00b7 ", W.statuses[row.status] || row.status,
      row.net === null ? "" : " ", row.net === null ? "" : el("span", { class: "chip " + (row.net > 0 ? "up" : row.net < 0 ? "down" : "even") }, signed(row.net))));
  if (history) item.append(handSummary(row, history));
  if (ended) {
    // verify and export only once the hand has ended (the API refuses a hand in play)
    const verify = el("button", { type: "button", "data-verify": String(row.id) }, W.verify);
    verify.addEventListener("click", async () => {
      const checked = await api("GET", "/hands/" + row.id + "/verify");
      if (checked.status !== 200) { result.textContent = errorText(checked); return; }
      const failures = Object.entries(checked.data).filter(([, v]) => v !== "ok");
      result.dataset.ok = String(!failures.length);
      result.textContent = failures.length ? failures.map(([k, v]) => k + ": " + v).join("; ") : W.verify_ok;
    });
    const download = el("button", { type: "button", "data-export": String(row.id) }, W.export);
    download.addEventListener("click", async () => {
      const response = await fetch(config.api + "/hands/" + row.id + "/export", { headers: headers(), credentials: "same-origin" });
      if (!response.ok) { result.textContent = errorText({ status: response.status, data: await response.json().catch(() => null) }); return; }
      const link = el("a", { href: URL.createObjectURL(await response.blob()), download: "hand-" + row.id + ".json" });
      document.body.append(link); link.click(); link.remove();
    });
    item.append(el("p", {}, verify, " ", download, " ", result));
  }
  if (history && ended) {
    const details = el("details", { class: "replay-details" }, el("summary", {}, W.replay));
    details.addEventListener("toggle", () => { if (details.open && !details.querySelector(".replay")) details.append(replayNode(history)); });
    item.append(details);
  }
  // a dispute about this hand: the reason goes to the operators (POST /hands/{id}/disputes)
  const form = el("form", { class: "dispute-form", "data-dispute": String(row.id) });
  const reasonId = "dispute-reason-" + row.id;
  const said = el("span", { class: "dispute-result", role: "status" });
  form.append(el("label", { for: reasonId }, W.dispute_reason), el("input", { id: reasonId, name: "reason", maxlength: "500", required: "" }),
    el("button", { type: "submit", class: "small" }, W.dispute_open), " ", said);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = await api("POST", "/hands/" + row.id + "/disputes", { reason: form.elements.reason.value });
    said.textContent = answer.status === 201 ? W.dispute_sent : errorText(answer);
    said.dataset.ok = String(answer.status === 201);
  });
  item.append(el("details", { class: "dispute-details" }, el("summary", {}, W.dispute_open), form));
  return item;
}

async function loadHistory() {
  const answer = await api("GET", "/me/hands");
  if (answer.status !== 200) return;
  const rows = answer.data.results || [];
  if (!rows.length) { $("hands").replaceChildren(el("li", {}, W.no_hands)); return; }
  const histories = await Promise.all(rows.map((row, i) => (i < REPLAYED_HANDS
    ? api("GET", "/hands/" + row.id).then((read) => (read.status === 200 ? read.data : null)) : Promise.resolve(null))));
  $("hands").replaceChildren(...rows.map((row, i) => historyRow(row, histories[i])));
  const target = location.hash && document.getElementById(location.hash.slice(1));
  if (target) target.scrollIntoView();
}

// --- signing in and out ---------------------------------------------------------------------------------------

function signOut(why) {
  token = null;
  me = null;
  stopped = true;
  if (socket) socket.close();
  if (lobbyTimer) clearInterval(lobbyTimer);
  for (const id of ["game", "lobby", "history", "account", "no-table"]) $(id).hidden = true;
  $("me").textContent = "";
  $("balance").textContent = "";
  $("signin").hidden = false;
  setStatus("closed", why);
}

async function start(quiet) {
  // quiet: the page just opened, perhaps signed in by its cookie; not being signed in is no error then
  const answer = await api("GET", "/me");
  if (answer.status !== 200) {
    signOut(W.not_signed_in);
    if (!quiet) $("signin-error").textContent = W.token_refused;
    return;
  }
  me = answer.data;
  stopped = false;
  $("signin").hidden = true;
  $("account").hidden = false;
  $("me").textContent = me.username;
  $("balance").textContent = me.balance;
  if (config.view === "table") {
    $("game").hidden = false;
    setStatus("closed", W.connecting);
    await load();
    connect();
  } else if (config.view === "history") {
    $("history").hidden = false;
    setStatus("closed", "");
    await loadHistory();
  } else {
    $("lobby").hidden = false;
    setStatus("closed", "");
    await loadLobby();
    lobbyTimer = setInterval(loadLobby, LOBBY_REFRESH_MS);
  }
}

$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  token = $("token").value.trim();
  start();
});
function fieldErrors(answer) {
  // a refusal's own words for each field (API errors: details.fields), else its message
  const fields = answer.data && answer.data.error && answer.data.error.details && answer.data.error.details.fields;
  if (!fields) return [errorText(answer)];
  return Object.values(fields).flat().map(String);
}

function passwordForm(form, path, fields, welcome, errorBox) {
  // sign in (or register) with a username and password: the server puts the token in the HttpOnly cookie, or
  // says why not (the API's errors: a wrong password, a lockout, an exclusion, each field's problem), under the
  // form that was sent
  $(form).addEventListener("submit", async (event) => {
    event.preventDefault();
    token = null;
    const answer = await api("POST", path, { username: $(fields[0]).value, password: $(fields[1]).value });
    for (const box of ["signin-error", "register-error"]) $(box).replaceChildren();
    if (answer.status >= 400) { $(errorBox).replaceChildren(...fieldErrors(answer).map((text) => el("p", {}, text))); return; }
    if (welcome) announce(welcome);
    start();
  });
}
passwordForm("password-form", config.session_url, ["username", "password"], null, "signin-error");
passwordForm("register-form", config.register_url, ["reg-username", "reg-password"], W.registered, "register-error");
$("sign-out").addEventListener("click", async () => {
  if (token) await api("POST", "/auth/logout");  // the pasted token
  await api("POST", config.session_end_url);  // the cookie's token, revoked, and the cookie gone
  signOut(W.signed_out);
});
$("seed-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const seed = $("seed-input").value.trim();
  if (seed) await setSeed(seed, true);
});
$("sound").addEventListener("click", () => {
  localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on");
  renderSoundButton();
  beep(660, 60);
});
renderSoundButton();
$("seed-rotate").addEventListener("click", () => setSeed(randomSeed(), false));
$("my-seeds").addEventListener("click", () => downloadMySeeds(me.id));
$("history-seeds").addEventListener("click", () => downloadMySeeds(me.id));
$("seed-auto").addEventListener("change", () => {
  if ($("seed-auto").checked) sessionStorage.removeItem(SEED_CHOSEN_KEY); else sessionStorage.setItem(SEED_CHOSEN_KEY, "1");
});
document.addEventListener("keydown", (event) => {
  // keyboard play: a letter presses the matching action's button (never while typing in a field)
  if (event.ctrlKey || event.metaKey || event.altKey || /^(INPUT|SELECT|TEXTAREA)$/.test(event.target.tagName)) return;
  const action = KEYS[event.key.toLowerCase()];
  const button = action && document.querySelector("#actions button[data-action=" + action + "]");
  if (button) { event.preventDefault(); button.click(); }
});
start(true);
