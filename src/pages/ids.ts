/**
 * The element ids the pages' scripts (src/pages/scripts/) work with, named once: the templates in
 * src/pages/ write `id="${ids.x.y}"` and the scripts find `byId(ids.x.y)`, so an id changed or
 * removed on one side only is a type error on the other, and `npm run lint:ids`
 * (scripts/check-page-ids.ts) refuses one spelt out as a literal anywhere in the pages. Another
 * page's element that carries the same id (the app's name on the consent page and on the apps
 * page's form) is named here too, in its own group. Ids that only a stylesheet or a test names
 * stay in the templates. A result slot's regions are `<slot>-status` and `<slot>-error`
 * (src/pages/result-slot.ts).
 */
export const ids = {
  signIn: {
    passkeyButton: 'passkey-signin',
    result: 'signin-result',
  },
  profile: {
    picture: 'picture',
    flair: 'profile-flair',
    email: 'profile-email',
    playMinutes: 'play-minutes',
    result: 'account-result',
    bioRemoved: 'bio-removed',
    bioForm: 'bio-form',
    bio: 'bio',
    bioResult: 'bio-result',
    flairForm: 'flair-form',
    flairSelect: 'flair',
    flairResult: 'flair-result',
    pictureForm: 'picture-form',
    pictureFile: 'picture-file',
    removePicture: 'remove-picture',
    pictureResult: 'picture-result',
    signIns: 'sign-ins',
  },
  control: {
    grants: 'grants',
    scopeDescriptions: 'scope-descriptions',
    grantsResult: 'grants-result',
    passwordForm: 'password-form',
    currentPassword: 'current-password',
    newPassword: 'new-password',
    passwordResult: 'password-result',
    firstPasswordForm: 'first-password-form',
    firstPassword: 'first-password',
    firstPasswordResult: 'first-password-result',
    sessions: 'sessions',
    signOutEverywhere: 'signout-everywhere',
    sessionsResult: 'sessions-result',
    deleteForm: 'delete-form',
    deletePassword: 'delete-password',
    deleteConfirm: 'delete-confirm',
    deleteResult: 'delete-result',
  },
  passkeys: {
    list: 'passkey-list',
    addForm: 'add-passkey-form',
    addPassword: 'add-passkey-password',
    addResult: 'add-passkey-result',
    addWithPasskey: 'add-passkey-with-passkey',
    result: 'passkeys-result',
    unsupported: 'passkey-unsupported',
  },
  /**
   * The account page's "Linked accounts" (src/pages/linked-accounts.ts): the linked identities,
   * listed and unlinked by scripts/account-upstream-identities.ts; one plain form per enabled
   * upstream to link (each form `data-upstream="<slug>"`, shown while that upstream is not linked).
   */
  /**
   * The account page's "Confirm it is you" card (src/pages/confirmation.ts), for an account without
   * a password: one form per linked upstream that can confirm, and a passkey button.
   */
  confirmation: {
    section: 'confirm-identity',
    status: 'confirm-identity-status',
    passkey: 'confirm-with-passkey',
    result: 'confirm-identity-result',
    /** An upstream's "Confirm with <name>" button. */
    upstreamButton: (slug: string) => `confirm-upstream-${slug}`,
  },
  linkedAccounts: {
    section: 'upstream-identities',
    list: 'upstream-identity-list',
    result: 'upstream-identities-result',
    /** An upstream's "Link <name>" button. */
    linkButton: (slug: string) => `link-upstream-${slug}`,
  },
  authenticator: {
    off: 'totp-off',
    startForm: 'totp-start-form',
    startPassword: 'totp-start-password',
    startResult: 'totp-start-result',
    setup: 'totp-setup',
    qr: 'totp-qr',
    uri: 'totp-uri',
    setupKey: 'totp-setup-key',
    confirmForm: 'totp-confirm-form',
    code: 'totp-code',
    confirmResult: 'totp-confirm-result',
    on: 'totp-on',
    recoveryCodesLeft: 'recovery-codes-left',
    endedSessions: 'totp-ended-sessions',
    recoveryCodesBox: 'recovery-codes-box',
    recoveryCodes: 'recovery-codes',
    copyRecoveryCodes: 'copy-recovery-codes',
    downloadRecoveryCodes: 'download-recovery-codes',
    recoveryForm: 'recovery-form',
    recoveryPassword: 'recovery-password',
    recoveryResult: 'recovery-result',
    offForm: 'totp-off-form',
    offPassword: 'totp-off-password',
    offResult: 'totp-off-result',
    passkeyConfirm: 'totp-passkey-confirm',
    passkeyResult: 'totp-passkey-result',
  },
  apps: {
    result: 'apps-result',
    newSecret: 'new-secret',
    newSecretApp: 'new-secret-app',
    newClientId: 'new-client-id',
    newClientSecret: 'new-client-secret',
    copyClientSecret: 'copy-client-secret',
    registerForm: 'register-form',
    name: 'app-name',
    redirectUris: 'redirect-uris',
    postLogoutRedirectUris: 'post-logout-redirect-uris',
    public: 'app-public',
    /** The register form's choice of the refresh grant (grant_types). */
    refreshTokens: 'app-refresh-tokens',
    /** The register form's choice of the device grant (grant_types: urn:ietf:params:oauth:grant-type:device_code). */
    deviceGrant: 'app-device-grant',
    list: 'apps',
    scopeChoices: 'scope-choices',
    /** An app's own result slot, in its card. */
    itemResult: (clientId: string) => `app-${clientId}-result`,
  },
  games: {
    form: 'game-form',
    title: 'game-title',
    url: 'game-url',
    result: 'games-result',
    list: 'games',
    listResult: 'games-list-result',
    /** A game's own result slot, after its edit (owner) or removal (moderator) form. */
    itemResult: (gameId: number) => `game-${gameId}-result`,
  },
  play: {
    frame: 'game',
    consent: 'consent',
    consentApp: 'consent-app',
    consentOwner: 'consent-owner',
  },
  /** The consent and logout pages: the app that asks (no script; the same id as the apps page's name field). */
  consent: {
    appName: 'app-name',
  },
  /**
   * The device page (/device, src/pages/device.ts: RFC 8628's verification page; no script, plain
   * forms). Its list of scopes is `#scopes`, the consent page's id, written in both templates.
   */
  device: {
    form: 'device-form',
    userCode: 'user-code',
    continue: 'device-continue',
    /** A refused code's reason, on the form. */
    error: 'device-error',
    appName: 'device-app-name',
    appOwner: 'device-app-owner',
    approve: 'device-approve',
    deny: 'device-deny',
    /** What the decision did (approved or denied). */
    result: 'device-result',
  },
  /**
   * Signing in through an upstream identity provider (src/pages/upstreams.ts; no script, plain
   * forms): the buttons' section on the sign-in and sign-up pages (each button `upstream-<slug>`),
   * the page that picks a new account's public name, and the page that links an identity to the
   * account with its address.
   */
  upstream: {
    buttons: 'upstream-sign-in',
    signUpForm: 'upstream-signup-form',
    provider: 'upstream-provider',
    email: 'upstream-email',
    signUpSubmit: 'upstream-signup-submit',
    linkSignIn: 'upstream-link-signin',
    linkForm: 'upstream-link-form',
    linkConfirm: 'upstream-link-confirm',
    linkCancel: 'upstream-link-cancel',
    linkWaysIn: 'upstream-link-ways-in',
  },
  /** The public profile (no script for these; the same ids as the account page's profile card). */
  publicProfile: {
    flair: 'profile-flair',
    playMinutes: 'play-minutes',
  },
  report: {
    form: 'report-form',
    reason: 'report-reason',
    text: 'report-text',
    submit: 'report-submit',
    result: 'report-result',
  },
  moderation: {
    user: 'moderation-user',
    heading: 'moderation-user-heading',
    view: 'moderation-user-view',
    history: 'moderation-history',
    result: 'moderation-result',
    queue: 'queue-list',
    searchForm: 'moderation-search-form',
    search: 'moderation-search',
    searchResult: 'moderation-search-result',
    results: 'moderation-results',
    reasonLabels: 'reason-labels',
    outcomeLabels: 'outcome-labels',
    actionLabels: 'action-labels',
  },
} as const;
