// VS Code client for the dslc language server (`dslc lsp`, stdio).
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function createClient() {
  const config = vscode.workspace.getConfiguration("dslc");
  const command = config.get("path", "dslc");
  // TransportKind.stdio makes the client append `--stdio`, which `dslc lsp` accepts.
  const serverOptions = { command, args: ["lsp"], transport: TransportKind.stdio };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "dp" },
      { scheme: "untitled", language: "dp" },
    ],
    initializationOptions: { debounce: config.get("debounce", 0.25) },
  };
  return new LanguageClient("dslc", "dslc", serverOptions, clientOptions);
}

async function activate(context) {
  client = createClient();
  context.subscriptions.push(
    vscode.commands.registerCommand("dslc.restartServer", async () => {
      if (client) {
        await client.stop();
      }
      client = createClient();
      await client.start();
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("dslc.path") || event.affectsConfiguration("dslc.debounce")) {
        vscode.commands.executeCommand("dslc.restartServer");
      }
    }),
  );
  try {
    await client.start();
  } catch (err) {
    vscode.window.showErrorMessage(
      `dslc: could not start \`${vscode.workspace.getConfiguration("dslc").get("path", "dslc")} lsp\` ` +
        `(${err && err.message ? err.message : err}). Install dslc (pip install -e . in its repository) or set "dslc.path".`,
    );
  }
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
