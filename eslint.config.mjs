// Type-aware lint. The rule that matters most here is no-floating-promises: a forgotten
// promise in an input path is a press that silently never reaches the application.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {
    // src/app-kit/vendor: NewBlue's module (plain JS) and Companion Satellite's protocol client (TypeScript),
    // vendored unmodified in their own style.
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'test-output/**',
      'build/**',
      '**/*.mjs',
      'src/app-kit/vendor/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-empty': ['error', { allowEmptyCatch: false }],
      '@typescript-eslint/only-throw-error': 'error',
    },
  },
  {
    // Tests that run code in a browser: the root tsconfig leaves them out (it has no DOM), test/page's has them.
    files: ['test/**/*browser.test.ts'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        project: './test/page/tsconfig.json',
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
)
