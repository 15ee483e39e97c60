// Flat config. The two architecture rules live here: only src-main/electron may import
// 'electron', and shared/ may import nothing but zod (and its own files).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const noElectron = {
  name: 'electron',
  message: "Only src-main/electron/ may import 'electron' (plain Node cannot load it here).",
};

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
    files: ['shared/**'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ regex: '^(?!zod$)(?!\\./)', message: 'shared/ imports only zod and its own files.' }],
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
