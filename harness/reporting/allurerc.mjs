// Allure 3 configuration for the rendered report: one self-contained HTML file. Its results are one per requirement
// (reporting/allure-status.ts), grouped by interface (epic) and operation (feature).
export default {
  name: 'Canton conformance',
  plugins: {
    awesome: {
      options: { singleFile: true, reportLanguage: 'en', groupBy: ['epic', 'feature'] },
    },
  },
};
