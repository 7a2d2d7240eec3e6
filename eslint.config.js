import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The import directions of the design (architecture.md §2, docs/decisions/0005-layering.md): the workspace packages each folder's source may
 * import (a package may always import itself). The CLI is the composition root and may import
 * everything, so it has no entry. The engine keeps `runtime`: docs/decisions/0005-layering.md.
 */
const LAYERS = [
  { folder: 'packages/contracts', self: 'contracts', allowed: [] },
  // Generated types and openapi-fetch: it talks HTTP only, so it may ship to the CLI and the browser.
  { folder: 'packages/api-client', self: 'api-client', allowed: [] },
  { folder: 'packages/runtime', self: 'runtime', allowed: ['contracts'] },
  { folder: 'packages/sandbox', self: 'sandbox', allowed: ['runtime', 'contracts'] },
  { folder: 'packages/engine', self: 'engine', allowed: ['sandbox', 'runtime', 'contracts'] },
  { folder: 'packages/server', self: 'server', allowed: ['engine', 'contracts'] },
  // The browser talks to the API through the generated client only (docs/decisions/0015).
  { folder: 'apps/web', self: 'web', allowed: ['contracts', 'api-client'] },
];

/** Storage drivers belong to the engine: the server talks to its services, never to the database. */
const SERVER_FORBIDDEN = ['kysely', 'better-sqlite3', 'pg', 'ioredis', 'bullmq'];

function layerRule({ folder, self, allowed }) {
  const others = `may import only ${allowed.length ? allowed.map((name) => `@tributary/${name}`).join(', ') : 'zod and node: built-ins'} (architecture.md §2, docs/decisions/0005-layering.md)`;
  const patterns = [
    {
      group: ['@tributary/*', ...[self, ...allowed].map((name) => `!@tributary/${name}`)],
      message: `${folder} ${others}.`,
    },
  ];
  if (folder === 'packages/contracts') {
    // The shared schemas load everywhere, the browser included: no third-party package but zod
    // (workspace packages are the group above's).
    patterns.push({ regex: '^(?!zod(/|$)|node:|\\.|@tributary/)', message: `${folder} ${others}.` });
  }
  if (folder === 'packages/server') {
    patterns.push({
      group: SERVER_FORBIDDEN,
      message: `${folder} ${others}: storage and queues are reached through the engine's services.`,
    });
  }
  return {
    files: [`${folder}/src/**/*.ts`, `${folder}/src/**/*.tsx`],
    // A test beside the code may drive it with real collaborators from any layer (a runtime module
    // through the real sandbox): the directions are about what ships.
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  };
}

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'test-results/**',
      // The data directories `npx tributary start` and `tributary dev` make in the clone (saved
      // component code): the README runs start before `npm test`.
      '.tributary/**',
      '.tributary-dev/**',
      'fixtures/**',
      'apps/web/test/fixtures/**',
      'bench/results/**',
      'packages/engine/src/apps/generated/**',
      'packages/api-client/src/openapi.generated.ts',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['packages/runtime/src/**/*.ts', 'packages/contracts/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Only the CLI composition root reads process.env.' },
      ],
    },
  },
  ...LAYERS.map(layerRule),
);
