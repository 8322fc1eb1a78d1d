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

// "dslc: Show Graph": the picture of the block under the cursor (`dslc.showGraph`
// on the server), as SVG when Graphviz is installed, else as Mermaid text.
// The server's own command id is registered by the language client itself.
let graphPanel;

function graphHtml(result) {
  const csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:;";
  const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const body = result.format === "svg"
    ? result.text.slice(result.text.indexOf("<svg"))
    : `<p>Graphviz (<code>dot</code>) is not installed: the Mermaid source follows (it renders in GitHub ` +
      `Markdown inside a <code>\`\`\`mermaid</code> block).</p><pre>${escape(result.text)}</pre>`;
  return `<!DOCTYPE html><html><head><meta charset="UTF-8">` +
    `<meta http-equiv="Content-Security-Policy" content="${csp}"></head>` +
    `<body style="background:#fff;color:#000">${body}</body></html>`;
}

async function requestGraph(editor, format) {
  const pos = editor.selection.active;
  return client.sendRequest("workspace/executeCommand", {
    command: "dslc.showGraph",
    arguments: [{
      uri: client.code2ProtocolConverter.asUri(editor.document.uri),
      position: { line: pos.line, character: pos.character },
      format,
    }],
  });
}

async function showGraph() {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "dp" || !client) {
    vscode.window.showWarningMessage("dslc: put the cursor in a block of a .dp file first.");
    return;
  }
  let result;
  try {
    try {
      result = await requestGraph(editor, "svg");
    } catch (err) {
      if (!(err && /Graphviz/.test(err.message || ""))) {
        throw err;
      }
      result = await requestGraph(editor, "mermaid");
    }
  } catch (err) {
    vscode.window.showErrorMessage(`dslc: ${err && err.message ? err.message : err}`);
    return;
  }
  if (!graphPanel) {
    graphPanel = vscode.window.createWebviewPanel("dslcGraph", "dslc graph", vscode.ViewColumn.Beside, {
      enableScripts: false,
    });
    graphPanel.onDidDispose(() => {
      graphPanel = undefined;
    });
  }
  graphPanel.title = `${result.kind} ${result.block}`;
  graphPanel.webview.html = graphHtml(result);
  graphPanel.reveal(vscode.ViewColumn.Beside, true);
}

async function activate(context) {
  client = createClient();
  context.subscriptions.push(
    vscode.commands.registerCommand("dslc.openGraph", showGraph),
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
