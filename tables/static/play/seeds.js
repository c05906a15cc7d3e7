"use strict";
// The player's own record of the client seeds he set (API.md v1.3, docs/fairness.md): each seed with the table
// and the table version the server answered (PUT /me/client-seed; sitting down, the seat's event), kept in this
// browser and downloadable, for tools/verify_hand.py --my-seeds. A seed change recorded in his name that this
// client never made is then named by the verifier.
const MY_SEEDS_KEY = "casino-my-seeds";

function mySeedsRecord(player) {
  let record = null;
  try { record = JSON.parse(localStorage.getItem(MY_SEEDS_KEY + ":" + player)); } catch (error) { record = null; }
  return record && Array.isArray(record.seeds) ? record : { format: "sevenhalf-my-seeds/1", player: String(player), seeds: [] };
}

function recordMySeed(player, clientSeed, setAt) {
  // setAt: [{table, version}] from the server's answer
  const record = mySeedsRecord(player);
  for (const { table, version } of setAt || []) {
    if (!record.seeds.some((s) => s.table === table && s.version === version)) record.seeds.push({ table, client_seed: clientSeed, version });
  }
  localStorage.setItem(MY_SEEDS_KEY + ":" + player, JSON.stringify(record));
}

function downloadMySeeds(player) {
  const blob = new Blob([JSON.stringify(mySeedsRecord(player), null, 1)], { type: "application/json" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = "my-client-seeds.json";
  link.click();
  URL.revokeObjectURL(link.href);
}
