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

function nameOf(username) { return username === me.username ? W.you : (username || W.house); }

function render(previous) {
  $("table-name").textContent = table.name ? "\u00b7 " + table.name : "";
  $("table-card").textContent = [W.presets[table.preset] || table.preset, W.banks[table.bank] || table.bank,
    fmt(W.limits, { min: table.min_bet, max: table.max_bet })].join(" \u00b7 ");
  $("balance").textContent = table.you.balance;
  $("seat").textContent = table.you.seat === null ? W.seat_none : table.you.seat;
  $("phase").textContent = W.phases[table.phase] || table.phase;
  $("phase").dataset.phase = table.phase;
  $("version").textContent = table.version;
  $("seats").replaceChildren(el("ul", {}, ...table.seats.map((s) => el("li", { "data-seat": String(s.seat) },
    s.seat + ": " + nameOf(s.username) + (s.is_banker ? " (" + W.banker + ")" : "") + (s.sitting_out ? " (" + W.sitting_out + ")" : "")))));
  renderHand();
  renderTurn();
  renderActions();
  renderLastHand();
  renderFairness();
  renderWorth();
  if (previous) announceChanges(previous, table);
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

function renderHand() {
  const hand = table.hand;
  const node = el("div");
  if (hand) {
    node.append(el("h3", { id: "hand-title" }, fmt(W.hand_n, { number: hand.number }) + " \u00b7 " + (W.phases[hand.phase] || hand.phase)));
    const turn = hand.turn;
    for (const p of hand.participants) {
      const mine = p.username === me.username;
      const isTurn = turn && turn.seat !== null && turn.seat === p.seat && turn.kind !== "bets";
      const box = el("div", { class: "participant" + (mine ? " me" : "") + (isTurn ? " turn" : ""),
                              "data-username": p.username || "house", "data-seat": String(p.seat), "data-role": p.role },
                     el("h4", {}, nameOf(p.username) + " \u00b7 " + (p.role === "banker" ? W.banker : W.punter)));
      for (const h of p.hands) {
        const label = nameOf(p.username) + (p.hands.length > 1 ? " \u00b7 " + fmt(W.hand_index, { index: h.index }) : "");
        box.append(el("div", { class: "cards", "data-hand": String(h.index), role: "group", "aria-label": label },
                      ...h.cards.map((c) => { const n = cardNode(c, mine); n.setAttribute("role", "img"); return n; })));
        const parts = h.cards.length ? [totalText(h)] : [];
        if (h.bet) parts.unshift(W.bet_label + " " + h.bet);
        if (h.result) parts.push((W.outcomes[h.result.outcome] || h.result.outcome) + " " + signed(h.result.net));
        box.append(el("div", { class: "hand-line", "data-total-hp": String(h.total_half_points ?? ""),
                               "data-total": h.total ?? "", "data-status": h.status }, parts.join(" \u00b7 ")));
      }
      node.append(box);
    }
  }
  $("hand").replaceChildren(node);
}

function signed(n) { return n > 0 ? "+" + n : String(n); }

function currentDeadline() {
  const hand = table.hand;
  if (!hand) return null;
  return hand.betting_deadline || (hand.turn ? hand.turn.deadline : null);
}

function turnText() {
  const hand = table.hand;
  if (!hand || !hand.turn) return "\u2013";
  const turn = hand.turn;
  if (turn.kind === "bets") return W.bets_open;
  if (turn.seat !== null && turn.seat === table.you.seat) return W.your_turn;
  const seat = table.seats.find((s) => s.seat === turn.seat);
  return fmt(W.turn_of, { name: seat ? nameOf(seat.username) : W.house });
}

function renderTurn() {
  $("turn").textContent = turnText();
  const deadline = currentDeadline();
  const countdown = $("countdown");
  countdown.dataset.deadline = deadline || "";
  if (countdownTimer) clearInterval(countdownTimer);
  const tick = () => {
    if (!deadline) { countdown.textContent = "\u2013"; countdown.classList.remove("urgent"); return; }
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

function renderActions() {
  const buttons = [];
  if (table.you.seat === null) buttons.push(actionButton("sit", () => sitDown()));
  for (const action of table.you.legal_actions) buttons.push(actionButton(action, () => act(action)));
  if (table.you.seat !== null) buttons.push(actionButton("leave", () => api("DELETE", "/tables/" + config.table + "/seats/me")));
  $("actions").replaceChildren(...buttons);
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
  const button = el("button", { type: "button", "data-action": action }, W.actions[action] || action);
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
    el("h4", {}, W.banker + ": " + nameOf(banker.username) + (banker.total ? " \u00b7 " + totalText(banker) : "")),
    el("div", { class: "cards", role: "group" }, ...banker.cards.map((code) => cardNode({ code, face_up: true }, false)))));
  const rows = el("ul", { class: "last-results" });
  for (const r of last.results) {
    rows.append(el("li", { "data-username": r.username || "", "data-outcome": r.outcome, "data-net": String(r.net),
                           "data-total-hp": String(r.total_half_points) },
      el("span", {}, fmt(W.result_line, { name: nameOf(r.username), outcome: W.outcomes[r.outcome] || r.outcome,
                                          net: signed(r.net), total: totalText(r) })),
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
    for (const p of t.hand.participants) for (const h of p.hands) h.cards.forEach((c, i) => out.push([t.hand.number + ":" + p.seat + ":" + h.index + ":" + i, p.username, c.code]));
    return out;
  };
  for (const [key, , code] of codes(before)) if (code) seen.add(key + code);
  for (const [key, username, code] of codes(after)) {
    if (code && !seen.has(key + code)) announce(fmt(W.dealt, { name: nameOf(username), card: cardName(code) }));
  }
  if (turnText() !== turnTextOf(before)) announce(turnText());
  const last = after.last_hand;
  if (last && (!before.last_hand || before.last_hand.number !== last.number)) {
    announce(fmt(W.last_hand_title, { number: last.number }));
    if (last.banker.total) announce(fmt(W.banker_line, { name: nameOf(last.banker.username), total: totalText(last.banker) }));
    for (const r of last.results) {
      announce(fmt(W.result_line, { name: nameOf(r.username), outcome: W.outcomes[r.outcome] || r.outcome, net: signed(r.net), total: totalText(r) }));
    }
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
  if (table && view.version <= table.version) return;
  const previous = table;
  table = view;
  render(previous);
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

async function loadHistory() {
  const answer = await api("GET", "/me/hands");
  if (answer.status !== 200) return;
  const rows = answer.data.results || [];
  if (!rows.length) { $("hands").replaceChildren(el("li", {}, W.no_hands)); return; }
  $("hands").replaceChildren(...rows.map((h) => {
    const result = el("span", { class: "verify-result", role: "status" });
    const verify = el("button", { type: "button", "data-verify": String(h.id) }, W.verify);
    verify.addEventListener("click", async () => {
      const checked = await api("GET", "/hands/" + h.id + "/verify");
      if (checked.status !== 200) { result.textContent = errorText(checked); return; }
      const failures = Object.entries(checked.data).filter(([, v]) => v !== "ok");
      result.dataset.ok = String(!failures.length);
      result.textContent = failures.length ? failures.map(([k, v]) => k + ": " + v).join("; ") : W.verify_ok;
    });
    const download = el("button", { type: "button", "data-export": String(h.id) }, W.export);
    download.addEventListener("click", async () => {
      const response = await fetch(config.api + "/hands/" + h.id + "/export", { headers: headers(), credentials: "same-origin" });
      if (!response.ok) { result.textContent = errorText({ status: response.status, data: await response.json().catch(() => null) }); return; }
      const link = el("a", { href: URL.createObjectURL(await response.blob()), download: "hand-" + h.id + ".json" });
      document.body.append(link); link.click(); link.remove();
    });
    const net = h.net === null ? "" : " \u00b7 " + signed(h.net);
    return el("li", { "data-hand": String(h.id) },
      el("a", { href: config.table_url.replace("{id}", h.table) }, fmt(W.hand_n, { number: h.number }) + " \u00b7 " + fmt(W.table_n, { id: h.table })),
      " \u00b7 " + (h.role === "banker" ? W.banker : W.punter) + net + " ", verify, download, " ", result);
  }));
}

// --- signing in and out ---------------------------------------------------------------------------------------

function signOut(why) {
  token = null;
  me = null;
  stopped = true;
  if (socket) socket.close();
  if (lobbyTimer) clearInterval(lobbyTimer);
  for (const id of ["game", "lobby", "history", "account", "no-table"]) $(id).hidden = true;
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
function passwordForm(form, path, fields, welcome) {
  // sign in (or register) with a username and password: the server puts the token in the HttpOnly cookie, or
  // says why not (the API's errors: a wrong password, a lockout, an exclusion)
  $(form).addEventListener("submit", async (event) => {
    event.preventDefault();
    token = null;
    const answer = await api("POST", path, { username: $(fields[0]).value, password: $(fields[1]).value });
    if (answer.status >= 400) { $("signin-error").textContent = errorText(answer); return; }
    $("signin-error").textContent = "";
    if (welcome) announce(welcome);
    start();
  });
}
passwordForm("password-form", config.session_url, ["username", "password"], null);
passwordForm("register-form", config.register_url, ["reg-username", "reg-password"], W.registered);
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
$("seed-rotate").addEventListener("click", () => setSeed(randomSeed(), false));
$("my-seeds").addEventListener("click", () => downloadMySeeds(me.id));
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
