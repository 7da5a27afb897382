// Preloaded into Node (NODE_OPTIONS=--require) by the MCP client tests: a
// server that listens on a port alone listens on 127.0.0.1 instead of every
// address, so that the servers the tests start stay on this machine.
"use strict";
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]))) {
    if (args.length === 1 || typeof args[1] === "function") {
      args.splice(1, 0, "127.0.0.1");
    }
  }
  return listen.apply(this, args);
};
