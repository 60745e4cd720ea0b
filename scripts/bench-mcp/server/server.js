#!/usr/bin/env node
// A minimal MCP server over stdio (JSON lines), no dependencies: one tool, "ping". The
// benchmark of gem tools list starts it with npx, as real extensions start theirs.
const readline = require('readline');
const rl = readline.createInterface({ input: process.stdin });
const send = (msg) => process.stdout.write(JSON.stringify(msg) + '\n');
rl.on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  if (msg.id === undefined) return; // a notification
  switch (msg.method) {
    case 'initialize':
      send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bench', version: '1.0.0' } } });
      break;
    case 'tools/list':
      send({ jsonrpc: '2.0', id: msg.id, result: { tools: [{ name: 'ping', description: 'Answers pong', inputSchema: { type: 'object', properties: {} } }] } });
      break;
    case 'tools/call':
      send({ jsonrpc: '2.0', id: msg.id, result: { content: [{ type: 'text', text: 'pong' }] } });
      break;
    default:
      send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'no method ' + msg.method } });
  }
});
