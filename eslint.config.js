// Flat config. The architecture rules live here: only src-main/electron may import 'electron',
// shared/ may import nothing but zod (and its own files), and the folders of src-main/ are layers
// that never import upward (LAYERS).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const noElectron = {
  name: 'electron',
  message: "Only src-main/electron/ may import 'electron' (plain Node cannot load it here).",
};

const noTestImports = { regex: '^(\\.\\./)+test/', message: 'Nothing in src-main/ imports from test/ (integration tests and fakes live there).' };

/**
 * The folders of src-main/ from the bottom up. A folder may import its own layer and the layers
 * below it, never one above: providers throw their own typed errors and app/ maps them to
 * problems; the lease owns every rented machine below the engine and the sweeps; only
 * composition/ wires api/, adapter/ and app/ together; electron/ (the only folder that imports
 * 'electron') may import anything.
 */
const LAYERS = [
  ['events'],
  ['store', 'llm', 'marketplace', 'docs', 'desktop'],
  ['snapshots', 'serving', 'suites', 'agents'],
  ['lease'],
  ['engine'],
  ['app'],
  ['sweeps'],
  ['adapter'],
  ['api'],
  ['composition'],
  ['cli', 'bench'],
];

function layerBlocks() {
  return LAYERS.map((layer, i) => {
    const above = [...LAYERS.slice(i + 1).flat(), 'electron'];
    return {
      files: layer.map((folder) => `src-main/${folder}/**`),
      rules: {
        'no-restricted-imports': ['error', {
          paths: [noElectron],
          patterns: [
            { regex: '^electron/', message: noElectron.message },
            { regex: `^(\\.\\./)+(${above.join('|')})(/|$)`, message: `${layer.join('/, ')}/ sit below ${above.join('/, ')}/ and never import them (eslint.config.js LAYERS).` },
            noTestImports,
          ],
        }],
      },
    };
  });
}

// Flat config merges globals across blocks: switch Node's off explicitly for shared/.
const nodeOnlyGlobalsOff = Object.fromEntries(
  Object.keys(globals.node).filter((name) => !(name in globals['shared-node-browser'])).map((name) => [name, 'off']),
);

export default tseslint.config(
  { ignores: ['dist/**', 'release/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': ['error', { paths: [noElectron], patterns: [{ regex: '^electron/', message: noElectron.message }] }],
    },
  },
  {
    files: ['src-main/electron/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // Tests in src-main/ are unit tests of the code beside them: fakes and helpers live in test/.
    files: ['src-main/**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [noElectron], patterns: [noTestImports] }],
    },
  },
  // The layers of src-main/, bottom first: a folder imports only from its own layer or the ones
  // below (shared/ is below them all). One block per layer, generated from LAYERS above.
  ...layerBlocks(),
  {
    // shared/ runs in main, renderer and CLI alike: zod and its own files only, and only the
    // globals every one of them has (no node:*, no process, no DOM).
    files: ['shared/**'],
    languageOptions: { globals: { ...nodeOnlyGlobalsOff, ...globals['shared-node-browser'], AbortSignal: 'readonly', AbortController: 'readonly', TextDecoder: 'readonly', Headers: 'readonly', Response: 'readonly', ReadableStream: 'readonly', URLSearchParams: 'readonly', fetch: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly' } },
    rules: {
      'no-undef': 'error',
      'no-restricted-imports': ['error', {
        patterns: [{ regex: '^(?!zod$)(?!\\.{1,2}/)', message: 'shared/ imports only zod and its own files.' }],
      }],
    },
  },
  {
    // The typed client may also use the SSE parser.
    files: ['shared/client/**'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ regex: '^(?!zod$)(?!eventsource-parser$)(?!\\.{1,2}/)', message: 'shared/client imports only zod, eventsource-parser and shared/ files.' }],
      }],
    },
  },
  {
    files: ['src-renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': ['error', {
        paths: [noElectron],
        patterns: [
          { regex: '^node:', message: 'The renderer runs in a sandbox: no Node built-ins.' },
          { regex: 'src-main', message: 'The renderer reaches the main process only through window.api.' },
        ],
      }],
    },
  },
  {
    // Small modules with one job each (CONTRIBUTING.md): no file over 400 lines and no function
    // over 120, blank lines and comments aside. Tests are exempt: a test file is a list of cases.
    files: ['src-main/**', 'shared/**', 'src-renderer/**', 'scripts/**', 'test/fakes/**', 'test/helpers/**'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
