// Allure 3 configuration for the rendered report: one self-contained HTML file.
export default {
  name: 'Canton conformance',
  plugins: {
    awesome: {
      options: { singleFile: true, reportLanguage: 'en', groupBy: ['epic', 'feature', 'story'] },
    },
  },
};
