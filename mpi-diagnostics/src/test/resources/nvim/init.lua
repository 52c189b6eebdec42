-- Headless Neovim (0.7+, built-in LSP client) for NeovimIT: starts bin/mana-lsp for C and Fortran
-- buffers, waits for the first non-empty diagnostics, writes what the editor holds as JSON, quits.
-- Environment: MANA_LSP (the server command), MANA_MANIFEST, MANA_NVIM_OUT (the JSON file to write).
local out = os.getenv('MANA_NVIM_OUT')

local function finish(payload)
  local f = assert(io.open(out, 'w'))
  f:write(vim.fn.json_encode(payload))
  f:close()
  vim.cmd('qa!')
end

-- never hang the test: give up after 60 s with what we have
vim.defer_fn(function() finish({ timeout = true }) end, 60000)

local default = vim.lsp.handlers['textDocument/publishDiagnostics']
local function on_diagnostics(err, result, ctx, config)
  default(err, result, ctx, config)
  if result and #result.diagnostics > 0 then
    local bufnr = vim.uri_to_bufnr(result.uri)
    local got = {}
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      table.insert(got, { lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
                          severity = d.severity, message = d.message, source = d.source })
    end
    -- the client has the diagnostics; let the editor's own state settle before reading it back
    vim.schedule(function() finish({ uri = result.uri, diagnostics = got }) end)
  end
end

vim.api.nvim_create_autocmd('FileType', {
  pattern = { 'c', 'cpp', 'fortran' },
  callback = function(args)
    local id = vim.lsp.start_client({
      name = 'mana-lsp',
      cmd = { os.getenv('MANA_LSP') },
      root_dir = vim.fn.getcwd(),
      init_options = { manifest = os.getenv('MANA_MANIFEST') },
      handlers = { ['textDocument/publishDiagnostics'] = on_diagnostics },
    })
    vim.lsp.buf_attach_client(args.buf, id)
  end,
})
