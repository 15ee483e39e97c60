// Flat config. The two architecture rules live here: only src-main/electron may import
// 'electron', and shared/ may import nothing but zod (and its own files).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const noElectron = {
  name: 'electron',
  message: "Only src-main/electron/ may import 'electron' (plain Node cannot load it here).",
};

const noTestImports = { regex: '^(\\.\\./)+test/', message: 'Nothing in src-main/ imports from test/ (integration tests and fakes live there).' };

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
  {
    // Providers and the engine sit below the app: they throw their own typed errors, and app/
    // maps them to problems. They never import app/, api/, adapter/, cli/ or electron/.
    files: ['src-main/{llm,marketplace,agents,engine,store,snapshots}/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [noElectron],
        patterns: [
          { regex: '^electron/', message: noElectron.message },
          { regex: '^(\\.\\./)+(app|api|adapter|cli|electron)(/|$)', message: 'Providers, the engine and the store never import app/, api/, adapter/, cli/ or electron/.' },
          noTestImports,
        ],
      }],
    },
  },
  {
    // The service layer (app/) and the operation handlers (adapter/) are below the transports and
    // the composition root: only composition/ wires api/, adapter/ and app/ together.
    files: ['src-main/{app,adapter}/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [noElectron],
        patterns: [
          { regex: '^electron/', message: noElectron.message },
          { regex: '^(\\.\\./)+(api|cli|composition|electron)(/|$)', message: 'app/ and adapter/ never import api/, cli/, composition/ or electron/.' },
          noTestImports,
        ],
      }],
    },
  },
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
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
